// ln-service ships no type declarations; it re-exports the `lightning` package it is built on,
// whose declarations describe every function it exports.
declare module 'ln-service' {
  export * from 'lightning';
}
