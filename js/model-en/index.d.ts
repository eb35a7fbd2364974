// Types of swe-embeddings-model-en (index.js).

/** The model's name, "swe-en-use-lite-large-para". */
export const modelName: string;
/** Where the model file is: a file: URL in Node, the served asset's URL in a bundled page. */
export const modelUrl: URL;
