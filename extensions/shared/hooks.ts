/** The state every extension keeps: the orders it shows, and the one action it may be running. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type ExtensionOrder, errorText, loadOrders } from "./api";

/** The orders asked for, from the app: `orders` null while loading, `error` when it failed. */
export function useOrders(ids: string[]) {
  const key = ids.join(",");
  const [orders, setOrders] = useState<ExtensionOrder[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setOrders(await loadOrders(key.split(",")));
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [key]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { orders, error, reload };
}

/**
 * One action at a time: a click while one runs does nothing. A ref, not only state, so that a
 * double click whose second click comes before the re-render still acts once.
 */
export function useOneAtATime() {
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (work: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    try {
      await work();
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, run };
}
