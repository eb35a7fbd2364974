"""sha256 of the float32 vectors of a .npy file written by `swe encode`, as big-endian bytes (what
PostgreSQL's float4send gives), row after row. Standard library only."""
import array
import ast
import hashlib
import sys

with open(sys.argv[1], "rb") as f:
    data = f.read()
assert data[:6] == b"\x93NUMPY", "not a .npy file"
header_len = int.from_bytes(data[8:10], "little")
header = ast.literal_eval(data[10 : 10 + header_len].decode("latin1"))
assert header["descr"] == "<f4" and not header["fortran_order"], header
values = array.array("f", data[10 + header_len :])
if sys.byteorder == "little":
    values.byteswap()
print(hashlib.sha256(values.tobytes()).hexdigest())
