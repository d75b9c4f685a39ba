/**
 * The app's pages while they are read: a page that is opened shows its skeleton at once (never
 * the previous page, still and silent, for the seconds its reads take), and a page read again
 * for a new search or item says so above itself and marks itself busy. A form being sent is not
 * a read: its own button shows that.
 */
import { Outlet, useLocation, useNavigation } from "@remix-run/react";
import {
  BlockStack,
  Card,
  Layout,
  ProgressBar,
  SkeletonBodyText,
  SkeletonDisplayText,
  SkeletonPage,
  Text,
} from "@shopify/polaris";
import { NAV_LINKS } from "./nav-links";

/** The page being opened, by its navigation label ("Products"), for the skeleton's title. */
function pageName(pathname: string): string {
  const exact = NAV_LINKS.find((l) => l.to === pathname);
  if (exact) return exact.label;
  const within = NAV_LINKS.filter((l) => l.to !== "/app" && pathname.startsWith(`${l.to}/`));
  return within[0]?.label ?? "the page";
}

export function PageOutlet() {
  const navigation = useNavigation();
  const location = useLocation();
  const to = navigation.location;
  const method = navigation.formMethod?.toUpperCase();
  const reading = navigation.state === "loading" && to && (!method || method === "GET");
  if (reading && to.pathname !== location.pathname) {
    return <PageSkeleton name={pageName(to.pathname)} />;
  }
  return (
    <>
      {reading ? <ReadingBar /> : null}
      <div aria-busy={reading ? true : undefined}>
        <Outlet />
      </div>
    </>
  );
}

/** A page's shape while its data is read, with a status a screen reader announces. */
export function PageSkeleton({ name }: { name: string }) {
  return (
    <div data-page-skeleton aria-busy="true">
      <div role="status">
        <Text as="span" visuallyHidden>
          {`Opening ${name}…`}
        </Text>
      </div>
      <SkeletonPage title={name === "the page" ? undefined : name} primaryAction>
        <Layout>
          <Layout.Section>
            <BlockStack gap="400">
              <Card>
                <BlockStack gap="300">
                  <SkeletonDisplayText size="small" />
                  <SkeletonBodyText lines={3} />
                </BlockStack>
              </Card>
              <Card>
                <SkeletonBodyText lines={8} />
              </Card>
            </BlockStack>
          </Layout.Section>
        </Layout>
      </SkeletonPage>
    </div>
  );
}

/** A thin bar above a page that is being read again (a search, another item). */
function ReadingBar() {
  return (
    <div
      data-page-reading
      style={{ position: "sticky", top: 0, zIndex: 400, paddingInline: 16, paddingTop: 4 }}
    >
      <ProgressBar progress={70} size="small" ariaLabelledBy="page-reading-label" />
      <div role="status">
        <Text as="span" id="page-reading-label" visuallyHidden>
          Reading the page again…
        </Text>
      </div>
    </div>
  );
}
