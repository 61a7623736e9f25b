// The wallet server's public base URL (PUBLIC_URL) and everything derived from it: the
// lightning-address domain, the LNURL links, their callbacks and the LNURL-pay metadata. Built in
// one place so that the address, the metadata and the callbacks always agree.

/** PUBLIC_URL as scheme://host[:port], without a default port for its scheme; anything else is refused. */
export function normalizePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute http(s) URL such as https://pay.example.com, not "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`PUBLIC_URL must use http or https, not "${url.protocol}"`);
  if (url.username || url.password) throw new Error('PUBLIC_URL must not carry a user name or password');
  // LUD-16 looks up /.well-known/lnurlp/<username> at the root of the address's domain.
  if (url.pathname !== '/' || url.search || url.hash)
    throw new Error(`PUBLIC_URL must be scheme://host[:port] without a path, query or fragment, not "${raw}"`);
  // URL.origin leaves out the scheme's default port (80 for http, 443 for https).
  return url.origin;
}

export class PublicUrls {
  /** The lightning-address domain: the host, with the port only when it is not the scheme's default. */
  readonly domain: string;

  constructor(readonly base: string) {
    this.domain = new URL(base).host;
  }

  address(username: string): string {
    return `${username}@${this.domain}`;
  }

  /** LUD-16: where a wallet looks a lightning address up. */
  lnurlp(username: string): string {
    return `${this.base}/.well-known/lnurlp/${username}`;
  }

  payCallback(username: string): string {
    return `${this.base}/lnurlp/${username}/callback`;
  }

  lnurlw(username: string): string {
    return `${this.base}/lnurlw/${username}`;
  }

  withdrawCallback(username: string): string {
    return `${this.base}/lnurlw/${username}/callback`;
  }

  /** LUD-06 metadata of an LNURL-pay to the username; its sha256 is the invoice's description hash. */
  payMetadata(username: string): string {
    return JSON.stringify([
      ['text/plain', `Payment to ${this.address(username)}`],
      ['text/identifier', this.address(username)],
    ]);
  }
}
