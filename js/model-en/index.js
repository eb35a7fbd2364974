// swe-embeddings-model-en: the default English model of swe-embeddings. `new URL(file,
// import.meta.url)` is the pattern Node, Vite, webpack 5 and Parcel resolve to the file (bundlers emit
// it as an asset); with esbuild, serve the .swe next to the bundle or import it with the file loader.
export const modelName = 'swe-en-use-lite-large-para';
export const modelUrl = new URL('./swe-en-use-lite-large-para.swe', import.meta.url);

// Registers the model for swe-embeddings' loadModel() with no source: in a bundle, where swe-embeddings
// cannot import this package by name, `import 'swe-embeddings-model-en'` is then all it takes.
globalThis[Symbol.for('swe-embeddings.default-model')] ??= modelUrl;
