/**
 * The order page's Tracking card: the order's parcels (number, carrier, link, whether the shop
 * has the tracking, delivery) and the proof of delivery and warehouse photos the app keeps.
 */
import { Badge, BlockStack, Card, InlineStack, Link as PolarisLink, Text } from "@shopify/polaris";
import { shopDateTime } from "../../../orders/shop-time";
import type { ArchivedFilesView, OrderDetail } from "./shared";

export function TrackingCard({ order, pod }: { order: OrderDetail; pod: ArchivedFilesView }) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Tracking
        </Text>
        {order.shipments.length === 0 ? (
          <Text as="p" tone="subdued">
            No parcel yet.
          </Text>
        ) : (
          order.shipments.map((s) => <Parcel key={s.id} shipment={s} timeZone={order.timeZone} />)
        )}
        <ArchivedFiles pod={pod} />
      </BlockStack>
    </Card>
  );
}

/** One parcel: its tracking number, carrier and link, and where its tracking has got to. */
function Parcel({
  shipment: s,
  timeZone,
}: {
  shipment: OrderDetail["shipments"][number];
  timeZone: string | null;
}) {
  return (
    <div data-tracking={s.trackNumber ?? ""}>
      <InlineStack gap="200" blockAlign="center">
        <Text as="span" fontWeight="semibold">
          {s.trackNumber ?? "no number yet"}
        </Text>
        {s.logisticName ? <Text as="span">{s.logisticName}</Text> : null}
        {s.trackingUrl ? (
          <PolarisLink url={s.trackingUrl} target="_blank">
            Track the parcel
          </PolarisLink>
        ) : null}
        {s.written ? (
          <Badge tone="success">Sent to the shop</Badge>
        ) : (
          <Badge>Not in the shop yet</Badge>
        )}
        {s.deliveredAt ? (
          <Badge tone="success">{`Delivered ${shopDateTime(s.deliveredAt, timeZone)}`}</Badge>
        ) : null}
      </InlineStack>
    </div>
  );
}

const GROUPS = [
  ["proof_of_delivery", "Proof of delivery"],
  ["warehouse_photo", "Warehouse photos"],
] as const;

/** Proof of delivery and warehouse photos, shown from the app's own copies. */
function ArchivedFiles({ pod }: { pod: ArchivedFilesView }) {
  return (
    <>
      {GROUPS.map(([purpose, title]) => {
        const files = pod.files.filter((f) => f.purpose === purpose);
        if (files.length === 0) return null;
        return <ArchivedGroup key={purpose} purpose={purpose} title={title} files={files} />;
      })}
      {pod.copying > 0 ? (
        <Text as="p" tone="subdued">
          {`Copying ${pod.copying} file${pod.copying === 1 ? "" : "s"} from the service into the app…`}
        </Text>
      ) : null}
      {pod.failed.length > 0 ? (
        <Text as="p" tone="subdued">
          {`${pod.failed.length} file${pod.failed.length === 1 ? "" : "s"} could not be copied: ${pod.failed[0]}`}
        </Text>
      ) : null}
    </>
  );
}

/** The files of one purpose: a thumbnail for an image, a numbered link for anything else. */
function ArchivedGroup({
  purpose,
  title,
  files,
}: {
  purpose: string;
  title: string;
  files: ArchivedFilesView["files"];
}) {
  return (
    <BlockStack gap="100">
      <Text as="h3" variant="headingSm">
        {title}
      </Text>
      <InlineStack gap="200" wrap>
        {files.map((f, i) => (
          <a
            key={f.id}
            href={f.url}
            target="_blank"
            rel="noreferrer"
            data-archived={purpose}
            aria-label={`${title}: file ${i + 1}`}
          >
            {f.image ? (
              <img
                src={f.url}
                alt=""
                width={72}
                height={72}
                style={{
                  objectFit: "cover",
                  borderRadius: 8,
                  display: "block",
                  border: "1px solid var(--p-color-border)",
                }}
              />
            ) : (
              <Text as="span">{f.video ? `Video ${i + 1}` : `File ${i + 1}`}</Text>
            )}
          </a>
        ))}
      </InlineStack>
    </BlockStack>
  );
}
