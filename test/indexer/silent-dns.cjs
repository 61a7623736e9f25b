// Preloaded (node --require) into an indexer under test: lookups of SILENT_DNS_HOST are answered
// the first time and never again, as by a resolver that went silent (Podman's aardvark-dns answers
// nothing for a while when it reloads, which it does whenever a container of any network starts
// or stops). Every user of dns.lookup sees it: net's connections and the ES module imports too.
const dns = require('node:dns');
const { syncBuiltinESMExports } = require('node:module');

const original = dns.lookup;
let answered = false;
dns.lookup = function lookup(hostname, options, callback) {
  if (hostname === process.env.SILENT_DNS_HOST) {
    // unanswered, and holding the process as a getaddrinfo call in libuv's thread pool does
    if (answered) {
      setInterval(() => undefined, 2 ** 30);
      return {};
    }
    answered = true;
  }
  return original.call(this, hostname, options, callback);
};
syncBuiltinESMExports();
