// The native addon of swe-embeddings, prebuilt for this platform (node/src/addon.cpp in its
// repository). swe-embeddings imports this package when it is installed and calls the addon as it
// calls its WebAssembly module; nothing else should use it directly.
import { createRequire } from 'node:module';

export default createRequire(import.meta.url)('./swe.node');
