// swe-embeddings-model-en: the default English model of swe-embeddings. loadModel() with no argument
// imports this module and loads modelUrl. `new URL(file, import.meta.url)` is the pattern Node, Vite,
// webpack 5 and Parcel resolve to the file (bundlers emit it as an asset); with esbuild, serve the
// .swe next to the bundle or import it with the file loader (see swe-embeddings' README).
export const modelName = 'swe-en-use-lite-large';
export const modelUrl = new URL('./swe-en-use-lite-large.swe', import.meta.url);
