/**
 * No double submits: a form's second submit while its first is still on its way is dropped in
 * the browser (a double click lands before React re-renders a disabled button), and the form
 * carries a one-time key so that the server can recognise a repeat that got through anyway.
 */
import { Form, useNavigation } from "@remix-run/react";
import { type FormEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";

function newKey(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/**
 * `busy`: the form's request is running (a fetcher's or the page's navigation state). Returns
 * the onSubmit guard, the current one-time key, and `renew` to take a new key after a success.
 */
export function useSubmitOnce(busy: boolean) {
  const inFlight = useRef(false);
  const wasBusy = useRef(false);
  const [key, setKey] = useState(newKey);
  useEffect(() => {
    if (!busy) inFlight.current = false;
    // A request finished: the next submit is a new one, with a new key.
    if (wasBusy.current && !busy) setKey(newKey());
    wasBusy.current = busy;
  }, [busy]);
  const onSubmit = useCallback((event: FormEvent) => {
    if (inFlight.current) {
      event.preventDefault();
      return;
    }
    inFlight.current = true;
  }, []);
  const renew = useCallback(() => setKey(newKey()), []);
  return { onSubmit, key, renew };
}

/** A POST form that sends once however often its button is clicked (with its one-time key). */
export function PostOnce({ children }: { children: ReactNode }) {
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state === "submitting");
  return (
    <Form method="post" onSubmit={once.onSubmit}>
      <input type="hidden" name="formKey" value={once.key} />
      {children}
    </Form>
  );
}
