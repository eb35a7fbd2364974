"""quantize_embeddings: sentence-transformers' precisions of embeddings, the same values from the same
rows (its quantize_embeddings): "float32" as is; "int8" / "uint8" each dimension's range (from `ranges`,
else from `calibration_embeddings`, else from the embeddings themselves: min and max per dimension) cut
into 256 steps; "binary" / "ubinary" one bit per dimension (> 0), packed 8 to a byte (np.packbits),
as int8 (minus 128) or uint8. One difference: a dimension whose range is empty (a single embedding, say)
maps to the lowest step rather than to an undefined cast of NaN."""
from ._checks import numpy

PRECISIONS = ("float32", "int8", "uint8", "binary", "ubinary")


def quantize_embeddings(embeddings, precision: str, ranges=None, calibration_embeddings=None):
    np = numpy()
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    x = np.asarray(embeddings)
    if x.dtype.kind != "f":
        raise ValueError(f"quantize_embeddings: embeddings must be floats, got {x.dtype}")
    if precision == "float32":
        return x.astype(np.float32, copy=False)
    if precision in ("binary", "ubinary"):
        if x.ndim != 2 or x.shape[1] % 8:
            raise ValueError("quantize_embeddings: binary precisions need rows of a multiple of 8 dimensions")
        packed = np.packbits(x > 0).reshape(x.shape[0], -1)
        return (packed.astype(np.int16) - 128).astype(np.int8) if precision == "binary" else packed
    if ranges is None:
        source = x if calibration_embeddings is None else np.asarray(calibration_embeddings)
        ranges = np.vstack((source.min(axis=0), source.max(axis=0)))
    ranges = np.asarray(ranges, dtype=x.dtype)  # in the embeddings' float type, as sentence-transformers computes
    starts = ranges[0]
    steps = (ranges[1] - ranges[0]) / 255
    scaled = np.divide(x - starts, steps, out=np.zeros(x.shape, dtype=x.dtype), where=steps > 0)
    if precision == "int8":
        return (scaled - 128).astype(np.int8)
    return scaled.astype(np.uint8)
