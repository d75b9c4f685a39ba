/**
 * A form's values as the merchant edits them, started from what is saved. When the saved values
 * change (a refresh, another form's save), a pristine form follows them; a form that differs
 * from what was saved keeps what the merchant typed. Comparison is by content, so a refresh that
 * brings the same values (a new object each time) changes nothing.
 */
import { useCallback, useMemo, useRef, useState } from "react";

export interface Draft<T> {
  values: T;
  set(next: T | ((old: T) => T)): void;
  /** True while the values differ from what is saved. */
  dirty: boolean;
  /** Back to what is saved (Discard, or after a successful save). */
  reset(): void;
}

export function useDraft<T>(saved: T): Draft<T> {
  const key = JSON.stringify(saved);
  const [values, setValues] = useState<T>(saved);
  const [base, setBase] = useState(key);
  const latest = useRef(saved);
  latest.current = saved;
  // The saved values moved: a form that still showed the old ones follows them (during render,
  // as React advises for state derived from props: no flash of the old values); one the
  // merchant changed keeps its values.
  if (key !== base) {
    setBase(key);
    if (JSON.stringify(values) === base) setValues(saved);
  }
  const reset = useCallback(() => {
    setBase(JSON.stringify(latest.current));
    setValues(latest.current);
  }, []);
  return useMemo(
    () => ({ values, set: setValues, dirty: JSON.stringify(values) !== key, reset }),
    [values, key, reset],
  );
}
