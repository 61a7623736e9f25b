// The largest figures lab.yaml and the API take, shared so that a setting has one bound wherever it is
// given. A module of its own, importing nothing: the API's schemas and the lab spec's both read it.

/** Every satoshi there can be (21 million BTC): no amount of a lab is larger. */
export const MAX_SAT = 2_100_000_000_000_000;

/** The longest a lab waits between blocks it mines by itself, or between faucet claims (a day). */
export const MAX_PERIOD_SECONDS = 86_400;
