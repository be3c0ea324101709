import pkg from '../../package.json' with { type: 'json' };

/** The package version, baked in at build time; both ends of every handshake compare it. */
export const VERSION: string = pkg.version;
