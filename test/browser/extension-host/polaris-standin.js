/* global customElements, HTMLElement */
/**
 * A small stand-in for Shopify's Polaris web components (s-*), for screenshots of the admin
 * extensions offline: Shopify's published components (cdn.shopify.com/shopifycloud/polaris.js)
 * cannot be had without the internet. Each element renders what the real one is for, with
 * native elements (a button is a <button>, a link an <a>, a banner a status region), styled
 * after the admin; it is not Shopify's rendering.
 */
const css = `
  :host { font: 13px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; color: #303030; }
  button { font: inherit; border-radius: 8px; padding: 6px 12px; border: 1px solid #c9c9c9; background: #fff; color: #303030; cursor: pointer; min-height: 32px; }
  button.primary { background: #303030; color: #fff; border-color: #303030; }
  button:disabled { opacity: .5; cursor: default; }
  a { color: #005bd3; }
`;

function define(tag, render, hostRole) {
  customElements.define(
    tag,
    class extends HTMLElement {
      static get observedAttributes() {
        return [
          "heading",
          "tone",
          "href",
          "variant",
          "disabled",
          "loading",
          "collapsedsummary",
          "accessibilitylabel",
          "direction",
          "gap",
        ];
      }
      connectedCallback() {
        this.update();
      }
      attributeChangedCallback() {
        this.update();
      }
      update() {
        if (hostRole && this.getAttribute("role") !== hostRole) this.setAttribute("role", hostRole);
        if (!this.shadowRoot) this.attachShadow({ mode: "open" });
        this.shadowRoot.innerHTML = `<style>${css}</style>${render(this)}`;
        const button = this.shadowRoot.querySelector("button");
        if (button)
          button.onclick = (e) => {
            e.stopPropagation();
            if (!button.disabled) this.click();
          };
      }
    },
  );
}
const attr = (el, name) =>
  (el.getAttribute(name) ?? "").replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
const TONES = {
  success: ["#cdfee1", "#0c5132"],
  critical: ["#fedad9", "#8e0b21"],
  warning: ["#ffef9d", "#4f4700"],
  info: ["#eaf4ff", "#00527c"],
  neutral: ["#f1f1f1", "#303030"],
  caution: ["#fff1e3", "#5e4200"],
};
const tone = (el, fallback) => TONES[el.getAttribute("tone")] ?? TONES[fallback];

define(
  "s-admin-block",
  (
    el,
  ) => `<section style="background:#fff;border-radius:12px;box-shadow:0 1px 0 rgba(26,26,26,.07),0 0 0 1px #e3e3e3;padding:16px;max-width:640px">
  <h2 style="font-size:14px;margin:0 0 12px">${attr(el, "heading")}</h2><slot></slot></section>`,
);
define(
  "s-admin-action",
  (
    el,
  ) => `<div role="dialog" aria-label="${attr(el, "heading")}" style="background:#fff;border-radius:12px;box-shadow:0 4px 16px rgba(0,0,0,.2);max-width:620px">
  <h2 style="font-size:14px;margin:0;padding:16px;border-bottom:1px solid #e3e3e3">${attr(el, "heading")}</h2>
  <div style="padding:16px">${el.hasAttribute("loading") ? "" : ""}<slot></slot></div>
  <div style="display:flex;flex-wrap:wrap;gap:8px;justify-content:flex-end;padding:12px 16px;border-top:1px solid #e3e3e3"><slot name="secondary-actions"></slot><slot name="primary-action"></slot></div></div>`,
);
define(
  "s-button",
  (el) =>
    `<button type="button" class="${el.getAttribute("variant") === "primary" || el.getAttribute("slot") === "primary-action" ? "primary" : ""}" ${el.hasAttribute("disabled") ? "disabled" : ""} aria-busy="${el.hasAttribute("loading")}"><slot></slot></button>`,
);
define("s-link", (el) => `<a href="${attr(el, "href")}"><slot></slot></a>`);
define("s-badge", (el) => {
  const [bg, fg] = tone(el, "neutral");
  return `<span style="display:inline-block;border-radius:8px;padding:2px 8px;font-weight:550;background:${bg};color:${fg}"><slot></slot></span>`;
});
define("s-banner", (el) => {
  const [bg, fg] = tone(el, "info");
  return `<div role="status" style="border-radius:8px;padding:10px 12px;background:${bg};color:${fg}">${el.getAttribute("heading") ? `<strong style="display:block;margin-bottom:4px">${attr(el, "heading")}</strong>` : ""}<slot></slot><div style="margin-top:8px"><slot name="secondary-actions"></slot></div></div>`;
});
define(
  "s-spinner",
  (el) =>
    `<div role="progressbar" aria-label="${attr(el, "accessibilitylabel")}" style="width:24px;height:24px;border:3px solid #e3e3e3;border-top-color:#303030;border-radius:50%"></div>`,
);
define(
  "s-stack",
  (el) =>
    `<div style="display:flex;flex-direction:${el.getAttribute("direction") === "inline" ? "row" : "column"};flex-wrap:wrap;align-items:${el.getAttribute("direction") === "inline" ? "center" : "stretch"};gap:${el.getAttribute("gap") === "base" ? 12 : 6}px"><slot></slot></div>`,
);
define(
  "s-text",
  (el) =>
    `<span style="color:${el.getAttribute("color") === "subdued" ? "#616161" : "inherit"}"><slot></slot></span>`,
);
define("s-paragraph", () => `<p style="margin:0"><slot></slot></p>`);
// The list's semantics sit on the hosts (a <ul> in a shadow root cannot own slotted items).
define(
  "s-unordered-list",
  () => `<div style="display:block;margin:0;padding-left:20px"><slot></slot></div>`,
  "list",
);
define(
  "s-list-item",
  () => `<div style="display:list-item;list-style:disc"><slot></slot></div>`,
  "listitem",
);
