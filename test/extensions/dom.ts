/**
 * A browser document (jsdom) for rendering an extension, installed on the globals only while a
 * test file renders, so that the app's backend and the simulators in the same process keep
 * Node's own globals (fetch, crypto, streams, Event: PGlite's socket needs Node's), as they have
 * in production. No `window` either: Shopify's Admin API client refuses to run where one exists.
 * Events are made by the document's own window (@testing-library's fireEvent), and `waitFor`
 * is given the document's body as its container (`waitForDom`).
 */
import { waitFor } from "@testing-library/preact";
import { JSDOM } from "jsdom";

const GLOBALS = [
  "document",
  "Node",
  "Element",
  "HTMLElement",
  "MutationObserver",
  "getComputedStyle",
] as const;

export function installDom(): () => void {
  const dom = new JSDOM("<!doctype html><html><body></body></html>", {
    url: "https://admin.shopify.com/store/test/orders",
    pretendToBeVisual: true,
  });
  const w = dom.window as unknown as Record<string, unknown>;
  const saved = new Map<string, PropertyDescriptor | undefined>();
  for (const key of GLOBALS) {
    saved.set(key, Object.getOwnPropertyDescriptor(globalThis, key));
    const value = w[key];
    Object.defineProperty(globalThis, key, {
      value:
        typeof value === "function" && key === "getComputedStyle" ? value.bind(dom.window) : value,
      configurable: true,
      writable: true,
    });
  }
  return () => {
    for (const [key, d] of saved) {
      if (d) Object.defineProperty(globalThis, key, d);
      else delete (globalThis as Record<string, unknown>)[key];
    }
    dom.window.close();
  };
}

/** `waitFor` on the installed document (its default container would need a global window). */
export function waitForDom(check: () => void, timeout = 10_000): Promise<void> {
  return waitFor(check, { container: document.body, timeout });
}
