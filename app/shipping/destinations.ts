/**
 * Facts about destinations that the placing needs, in one place: which countries are member
 * states of the European Union (IOSS applies to imports into the EU only), and which countries'
 * addresses need a state or province (an order to them without one is held, never sent with a
 * made-up value). Pure: browser-safe, no database, no service.
 */

/** The 27 member states of the European Union (ISO 3166-1 alpha-2). */
export const EU_MEMBER_STATES: readonly string[] = [
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK",
];

/** Is this two-letter country code an EU member state (case-insensitive)? */
export function isEuMember(countryCode: string | null | undefined): boolean {
  return !!countryCode && EU_MEMBER_STATES.includes(countryCode.trim().toUpperCase());
}

/**
 * Countries whose postal addresses need a state, province or prefecture: the country is divided
 * into them, the postal services sort by them, and Shopify's own checkout asks for one there.
 * The value is the word the country uses, for the merchant's message.
 */
export const PROVINCE_REQUIRED: Readonly<Record<string, string>> = {
  AR: "province",
  AU: "state or territory",
  BR: "state",
  CA: "province or territory",
  CN: "province",
  ES: "province",
  ID: "province",
  IN: "state",
  IT: "province",
  JP: "prefecture",
  MX: "state",
  MY: "state",
  US: "state",
};

/** The word for the subdivision an address to this country needs, or null when none is needed. */
export function requiredSubdivision(countryCode: string | null | undefined): string | null {
  if (!countryCode) return null;
  return PROVINCE_REQUIRED[countryCode.trim().toUpperCase()] ?? null;
}
