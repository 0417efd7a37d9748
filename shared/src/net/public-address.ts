import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { RefusedRange } from '../failure-details.ts';

/**
 * Whether the service may connect to an address on a caller's behalf (media by URL, completion
 * webhooks): only to globally routable unicast addresses. Everything else is refused, by the range
 * ipaddr.js names (IANA's special-purpose registries): loopback, RFC 1918 private, carrier-grade
 * NAT (Alibaba's metadata at 100.100.100.200), link-local (the cloud metadata service at
 * 169.254.169.254), IPv6 unique-local (AWS's IPv6 metadata at fd00:ec2::254), unspecified,
 * multicast, broadcast, documentation and benchmarking nets, reserved space, and the IPv6 forms
 * that embed an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo), which would otherwise reach a
 * private IPv4 address in IPv6 clothing.
 */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string; kind: RefusedRange };

export function checkAddress(address: string): AddressVerdict {
  if (isIP(address) === 0) return { allowed: false, range: 'not an IP address', kind: 'other' };
  const range = ipaddr.parse(address).range();
  if (range === 'unicast') return { allowed: true };
  const [kind, text] = RANGES[range] ?? ['other', range];
  return { allowed: false, range: text, kind };
}

/** ipaddr.js's range names: the class a refusal reports, and how its message says it. */
const RANGES: Readonly<Record<string, [RefusedRange, string]>> = {
  unspecified: ['unspecified', 'unspecified'],
  broadcast: ['broadcast', 'broadcast'],
  multicast: ['multicast', 'multicast'],
  linkLocal: ['link_local', 'link-local (cloud metadata lives here)'],
  loopback: ['loopback', 'loopback'],
  carrierGradeNat: ['carrier_grade_nat', 'carrier-grade NAT (shared address space)'],
  private: ['private', 'private (RFC 1918)'],
  reserved: ['reserved', 'reserved or documentation'],
  uniqueLocal: ['unique_local', 'unique-local (private IPv6)'],
  ipv4Mapped: ['embeds_ipv4', 'IPv4-mapped IPv6'],
  rfc6145: ['embeds_ipv4', 'IPv4-translated IPv6'],
  rfc6052: ['embeds_ipv4', 'NAT64 (embeds an IPv4 address)'],
  '6to4': ['embeds_ipv4', '6to4 (embeds an IPv4 address)'],
  teredo: ['embeds_ipv4', 'Teredo (embeds an IPv4 address)'],
  deprecatedSiteLocal: ['unique_local', 'site-local (private IPv6)'],
  discard: ['reserved', 'discard-only'],
  benchmarking: ['reserved', 'benchmarking'],
};
