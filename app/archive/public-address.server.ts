/**
 * Which addresses the app may fetch for a file the service named (issue 37): only public ones.
 * A name is resolved once; every address it resolves to must be public (a maintained range
 * list: ipaddr.js, with IPv4 written inside IPv6 read as the IPv4 it is), and the connection
 * goes to the address that was checked, never to a second answer of the DNS (an undici Agent
 * whose `lookup` answers from the check).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent } from "undici";

/** Resolves a host name to all its addresses (the system resolver by default). */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The address is a public unicast one (not private, loopback, link-local, reserved, NAT64 …). */
export function isPublicAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(text)) return false;
  let parsed = ipaddr.parse(text);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress())
    parsed = parsed.toIPv4Address();
  return parsed.range() === "unicast";
}

/** An address the app will not fetch. Its message says so and names nothing else. */
export class AddressNotAllowedError extends Error {
  override name = "AddressNotAllowedError";
  constructor() {
    super("the address is not allowed");
  }
}

/** A host's addresses: a literal is its own; a name is resolved once (a failure may pass). */
export async function addressesOf(hostname: string, resolve: Resolve): Promise<string[]> {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) return [host];
  let addresses: string[] = [];
  try {
    addresses = await resolve(host);
  } catch {
    // Said below, as for a name without addresses.
  }
  if (addresses.length === 0) throw new Error("the address's name could not be resolved");
  return addresses;
}

/** A host's addresses, checked: all public (else AddressNotAllowedError), or refused. */
export async function checkedAddresses(hostname: string, resolve: Resolve): Promise<string[]> {
  // Names for this machine or its private network are refused without asking the resolver.
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name.endsWith(".internal"))
    throw new AddressNotAllowedError();
  const addresses = await addressesOf(hostname, resolve);
  if (!addresses.every(isPublicAddress)) throw new AddressNotAllowedError();
  return addresses;
}

/**
 * A dispatcher whose connections go only to addresses checked beforehand (`pin(host, …)`): a
 * name never pinned is refused at connect time, so nothing reaches an address not checked.
 * `lookup` is the one its connections use.
 */
export function pinnedAgent(): {
  agent: Agent;
  pin(hostname: string, addresses: string[]): void;
  lookup: LookupFunction;
} {
  const pinned = new Map<string, string[]>();
  const lookup: LookupFunction = (hostname, options, callback) => {
    const addresses = pinned.get(hostname.toLowerCase());
    if (!addresses) {
      callback(new AddressNotAllowedError(), "", 0);
      return;
    }
    const all = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: typeof all) => void)(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  };
  const agent = new Agent({ connect: { lookup } });
  return {
    agent,
    pin: (hostname, addresses) => pinned.set(hostname.toLowerCase(), addresses),
    lookup,
  };
}
