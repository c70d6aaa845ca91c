// The address table of the outbound guard's tests (issue 19, item 7): IPv6 forms that embed or translate an IPv4
// address, refused when the IPv4 address is private, loopback, link-local or otherwise special and allowed when it
// is public, and the IPv6 ranges refused whole. Each row: the address, and why.

/** Addresses no webhook (or any outbound call) may reach, the guard's own exceptions aside. */
export const REFUSED: readonly (readonly [address: string, why: string])[] = [
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated (::ffff:0:0/96, SIIT) loopback'],
  ['::ffff:0:10.0.0.1', 'IPv4-translated private'],
  ['::ffff:0:169.254.169.254', 'IPv4-translated metadata service'],
  ['::ffff:0:192.168.1.1', 'IPv4-translated private'],
  ['::127.0.0.1', 'IPv4-compatible (deprecated) loopback'],
  ['fec0::1', 'site-local (deprecated, fec0::/10)'],
  ['feff:ffff::1', 'site-local, its last /16'],
  ['2002:7f00:1::', '6to4 embedding 127.0.0.1'],
  ['2002:a00:1::1', '6to4 embedding 10.0.0.1'],
  ['2002:a9fe:a9fe::', '6to4 embedding 169.254.169.254'],
  ['2002:c0a8:101:1::1', '6to4 embedding 192.168.1.1'],
  ['2002:ac10:1::', '6to4 embedding 172.16.0.1'],
  ['2002:6440:1::', '6to4 embedding 100.64.0.1 (CGNAT)'],
  ['2002::1', '6to4 embedding 0.0.0.0'],
  ['2002:c058:6301::', '6to4 embedding the 6to4 relay anycast 192.88.99.1'],
  ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96) of 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
  ['64:ff9b::ac10:1', 'NAT64 of 172.16.0.1'],
  ['64:ff9b::c0a8:101', 'NAT64 of 192.168.1.1'],
  ['64:ff9b:1::7f00:1', 'local-use NAT64 (64:ff9b:1::/48) of 127.0.0.1'],
  ['64:ff9b:1:a00:1::', 'local-use NAT64 embedding 10.0.0.1 at bit 48'],
  ['64:ff9b:1:ffff::808:808', 'local-use NAT64, whatever it embeds'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32, RFC 4380 example)'],
  ['2001:0:a00:1::', 'Teredo with server 10.0.0.1'],
  ['2001::1', 'Teredo'],
  // The client's address is the last 32 bits inverted: ~127.0.0.1 is 80ff:fffe, ~10.0.0.1 is f5ff:fffe.
  ['2001:0:808:808::80ff:fffe', 'Teredo, server 8.8.8.8 (public), client 127.0.0.1'],
  ['2001:0:808:808::f5ff:fffe', 'Teredo, server 8.8.8.8 (public), client 10.0.0.1'],
  ['2001:2::1', 'benchmarking (2001:2::/48)'],
  ['3fff::1', 'documentation (3fff::/20)'],
  ['5f00::1', 'SRv6 segment identifiers (5f00::/16)'],
]

/** Addresses the guard lets through: public ones, also when embedded in another form. */
export const ALLOWED: readonly (readonly [address: string, why: string])[] = [
  ['8.8.8.8', 'public IPv4'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated public'],
  ['2002:808:808::1', '6to4 embedding 8.8.8.8'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ['2001:4860:4860::8888', 'public IPv6 (2001:4860::/32 is not Teredo)'],
  ['2001:1200::1', 'public IPv6 just past the IETF assignments'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2003:1::1', 'public IPv6 beside 6to4'],
]
