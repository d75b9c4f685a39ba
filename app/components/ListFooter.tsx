import { useSearchParams } from "@remix-run/react";
import { InlineStack, Pagination, Text } from "@shopify/polaris";

/** Under a list: how many there are, and the pages (the page number lives in the address). */
export function ListFooter({
  total,
  noun,
  page,
  pages,
}: {
  total: number;
  noun: string;
  page: number;
  pages: number;
}) {
  const [params, setParams] = useSearchParams();
  const go = (to: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(to));
    setParams(next);
  };
  return (
    <InlineStack align="space-between" blockAlign="center">
      <Text as="p" tone="subdued">
        {`${total} ${noun}${total === 1 ? "" : "s"}`}
      </Text>
      {pages > 1 ? (
        <Pagination
          hasPrevious={page > 1}
          hasNext={page < pages}
          label={`Page ${page} of ${pages}`}
          onPrevious={() => go(page - 1)}
          onNext={() => go(page + 1)}
        />
      ) : null}
    </InlineStack>
  );
}
