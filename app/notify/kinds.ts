/**
 * The kinds of notification email a merchant can turn on and off (settings and the link in
 * each email). Shared by the server and the settings page.
 */
export const NOTICE_KINDS = ["failures", "low_balance", "outage", "webhooks", "disputes"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The setting that turns each kind on. */
export const KIND_SETTING = {
  failures: "notifyFailures",
  low_balance: "notifyLowBalance",
  outage: "notifyOutage",
  webhooks: "notifyWebhooks",
  disputes: "notifyDisputes",
} as const satisfies Record<NoticeKind, string>;

/** How the settings page and the email name each kind. */
export const KIND_LABEL: Record<NoticeKind, string> = {
  failures: "Orders that failed or stay held",
  low_balance: "Low balance",
  outage: "Service outage and recovery",
  webhooks: "Webhooks not registered or missing deliveries",
  disputes: "Disputes: support's messages and status changes",
};

export function isNoticeKind(v: unknown): v is NoticeKind {
  return typeof v === "string" && (NOTICE_KINDS as readonly string[]).includes(v);
}
