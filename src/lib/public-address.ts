/**
 * Whether an IP address is one the public internet routes to: the one judgement the outbound guard makes of
 * an address, whether a URL spells it out or a host name resolves to it.
 */
import ipaddr from 'ipaddr.js';

/**
 * Why `host` (an IP address, without brackets) is not a public unicast address, or null when it is. ipaddr.js
 * decides the range: loopback, private, link-local, CGNAT, multicast, reserved and unspecified are refused;
 * IPv4-mapped IPv6 is judged as its IPv4; NAT64, 6to4, Teredo and IPv4-compatible forms are refused.
 * `loopbackAllowed` lets loopback through (local test servers only).
 */
export function addressRefusal(host: string, loopbackAllowed = false): string | null {
	const address = ipaddr.process(host);
	// IPv4-compatible IPv6 (::a.b.c.d, deprecated) reaches the IPv4 address: refused whatever it embeds.
	if (address.kind() === 'ipv6' && address.match(ipaddr.parseCIDR('::/96'))) return `${host} embeds an IPv4 address`;
	const range = address.range();
	if (range === 'loopback' && loopbackAllowed) return null;
	if (range !== 'unicast') return `${host} is a ${range} address, not a public one`;
	return null;
}

/** Whether `host` is an IP address literal (then there is nothing to resolve). */
export function isAddress(host: string): boolean {
	return ipaddr.isValid(host);
}
