"""Convert a small convolutional TFLite graph (MediaPipe's BlazeFace detectors) to ONNX.

Written for the two face models in the MediaPipe wheel, not as a general converter: it handles
the operators they use (CONV_2D, DEPTHWISE_CONV_2D, ADD, RELU, PAD, MAX_POOL_2D, RESIZE_BILINEAR,
DEPTH_TO_SPACE, RESHAPE, CONCATENATION; float16 weights behind DEQUANTIZE, CSR-sparse weights
behind DENSIFY) and raises ``NotImplementedError`` naming anything else.

The ONNX graph is NCHW with free batch, height and width (the TFLite file fixes 128×128 or
192×192), so the detector can run on larger inputs. Weights are folded to float32 initialisers;
4-D activations stay NCHW and are transposed back to NHWC only before a RESHAPE, so flattened
outputs keep TFLite's (y, x, anchor) order.

Needs the ``tflite`` package (flatbuffer schema, Apache-2.0) and ``onnx``; both are pure Python.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_DTYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}
_NHWC_TO_NCHW_AXIS = {0: 0, 1: 2, 2: 3, 3: 1}


def densify(values: np.ndarray, sparsity, shape: tuple[int, ...]) -> np.ndarray:
    """Dense array from a TFLite sparse tensor (DENSE / SPARSE_CSR dimensions, no blocks)."""
    import tflite

    if sparsity.BlockMapLength():
        raise NotImplementedError("block-sparse TFLite tensors are not supported")
    order = [int(d) for d in sparsity.TraversalOrderAsNumpy()]
    levels = []
    for i in range(sparsity.DimMetadataLength()):
        meta = sparsity.DimMetadata(i)
        if meta.Format() == 0:  # DENSE
            levels.append((meta.DenseSize(), None, None))
            continue
        vectors = []
        for kind, table in ((meta.ArraySegmentsType(), meta.ArraySegments()), (meta.ArrayIndicesType(), meta.ArrayIndices())):
            cls = {1: tflite.Int32Vector, 2: tflite.Uint16Vector, 3: tflite.Uint8Vector}[kind]
            vec = cls()
            vec.Init(table.Bytes, table.Pos)
            vectors.append(vec.ValuesAsNumpy().astype(np.int64))
        levels.append((None, *vectors))
    dense = np.zeros(shape, values.dtype)
    coord = [0] * len(order)
    cursor = iter(values.tolist())

    def walk(level: int, parent: int) -> None:
        if level == len(levels):
            index = [0] * len(shape)
            for k, axis in enumerate(order):
                index[axis] = coord[k]
            dense[tuple(index)] = next(cursor)
            return
        size, segments, indices = levels[level]
        if segments is None:
            for i in range(size):
                coord[level] = i
                walk(level + 1, parent * size + i)
        else:
            for j in range(segments[parent], segments[parent + 1]):
                coord[level] = int(indices[j])
                walk(level + 1, j)

    walk(0, 0)
    return dense


def convert(tflite_path: str | Path, onnx_path: str | Path, opset: int = 17) -> None:
    """Write ``onnx_path``: input ``image`` (B, 3, H, W) float32; outputs named as in the TFLite file."""
    import onnx
    import tflite
    from onnx import TensorProto, helper, numpy_helper

    buf = Path(tflite_path).read_bytes()
    model = tflite.Model.GetRootAsModel(buf, 0)
    graph = model.Subgraphs(0)
    op_names = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}

    consts: dict[int, np.ndarray] = {}
    names: dict[int, str] = {}
    nodes, inits = [], []

    def tensor(i: int):
        return graph.Tensors(i)

    def shape(i: int) -> list[int]:
        return [int(d) for d in tensor(i).ShapeAsNumpy()] if tensor(i).ShapeLength() else []

    def const(i: int) -> np.ndarray:
        if i not in consts:
            t = tensor(i)
            data = model.Buffers(t.Buffer()).DataAsNumpy()
            if isinstance(data, int) or t.Sparsity() is not None:
                raise NotImplementedError(f"tensor {t.Name()!r} is not a plain constant")
            consts[i] = np.frombuffer(data.tobytes(), _DTYPES[t.Type()]).reshape(shape(i))
        return consts[i]

    def is_const(i: int) -> bool:
        return i in consts or (model.Buffers(tensor(i).Buffer()).DataLength() > 0)

    def init(value: np.ndarray, hint: str) -> str:
        name = f"c{len(inits)}_{hint}"
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def out_name(i: int) -> str:
        names[i] = tensor(i).Name().decode() if i in graph_outputs else f"t{i}"
        return names[i]

    def activation(x: str, code: int, final: int) -> None:
        """Emit the fused activation (``code``) from ``x`` into output tensor ``final``."""
        target = out_name(final)
        if code == 0:
            nodes.append(helper.make_node("Identity", [x], [target]))
        elif code == 1:
            nodes.append(helper.make_node("Relu", [x], [target]))
        elif code == 3:
            nodes.append(helper.make_node("Clip", [x, init(np.float32(0), "lo"), init(np.float32(6), "hi")], [target]))
        else:
            raise NotImplementedError(f"fused activation {code}")

    def options(op, cls):
        table = op.BuiltinOptions()
        opts = cls()
        opts.Init(table.Bytes, table.Pos)
        return opts

    graph_inputs = [int(i) for i in graph.InputsAsNumpy()]
    graph_outputs = [int(i) for i in graph.OutputsAsNumpy()]
    if len(graph_inputs) != 1 or len(shape(graph_inputs[0])) != 4:
        raise NotImplementedError("expected one NHWC image input")
    names[graph_inputs[0]] = "image"
    channels = shape(graph_inputs[0])[3]

    for k in range(graph.OperatorsLength()):
        op = graph.Operators(k)
        code = model.OperatorCodes(op.OpcodeIndex())
        kind = op_names.get(max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), "?")
        ins = [int(i) for i in op.InputsAsNumpy()]
        outs = [int(i) for i in op.OutputsAsNumpy()]
        y = outs[0]
        if kind == "DENSIFY":
            t = tensor(ins[0])
            raw = model.Buffers(t.Buffer()).DataAsNumpy().tobytes()
            consts[y] = densify(np.frombuffer(raw, _DTYPES[t.Type()]), t.Sparsity(), tuple(shape(y)))
        elif kind == "DEQUANTIZE":
            src = const(ins[0])
            if src.dtype != np.float16:
                raise NotImplementedError("only float16 DEQUANTIZE is supported")
            consts[y] = src.astype(np.float32)
        elif kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            depthwise = kind == "DEPTHWISE_CONV_2D"
            o = options(op, tflite.DepthwiseConv2DOptions if depthwise else tflite.Conv2DOptions)
            w = const(ins[1]).astype(np.float32)
            w = w.transpose(3, 0, 1, 2) if depthwise else w.transpose(0, 3, 1, 2)  # → (O, I/group, kh, kw)
            group = shape(ins[0])[3] if depthwise else 1
            inputs = [names[ins[0]], init(w, "w")]
            if len(ins) > 2 and ins[2] >= 0:
                inputs.append(init(const(ins[2]).astype(np.float32), "b"))
            tmp = f"t{y}_conv"
            nodes.append(helper.make_node(
                "Conv", inputs, [tmp], kernel_shape=list(w.shape[2:]), strides=[o.StrideH(), o.StrideW()],
                dilations=[o.DilationHFactor(), o.DilationWFactor()], group=group,
                auto_pad="SAME_UPPER" if o.Padding() == 0 else "VALID"))  # fmt: skip
            activation(tmp, o.FusedActivationFunction(), y)
        elif kind == "ADD":
            o = options(op, tflite.AddOptions)
            operands = []
            for i in ins:
                if is_const(i):
                    c = const(i).astype(np.float32)
                    operands.append(init(c.reshape(-1, 1, 1) if c.ndim == 1 else c.transpose(0, 3, 1, 2) if c.ndim == 4 else c, "add"))
                else:
                    operands.append(names[i])
            nodes.append(helper.make_node("Add", operands, [f"t{y}_add"]))
            activation(f"t{y}_add", o.FusedActivationFunction(), y)
        elif kind in ("RELU", "RELU6"):
            activation(names[ins[0]], 1 if kind == "RELU" else 3, y)
        elif kind == "PAD":
            p = const(ins[1]).astype(np.int64)  # NHWC (4, 2) before/after
            pads = [p[0, 0], p[3, 0], p[1, 0], p[2, 0], p[0, 1], p[3, 1], p[1, 1], p[2, 1]]
            nodes.append(helper.make_node("Pad", [names[ins[0]], init(np.array(pads, np.int64), "pads")], [out_name(y)], mode="constant"))
        elif kind == "MAX_POOL_2D":
            o = options(op, tflite.Pool2DOptions)
            nodes.append(helper.make_node(
                "MaxPool", [names[ins[0]]], [f"t{y}_pool"], kernel_shape=[o.FilterHeight(), o.FilterWidth()],
                strides=[o.StrideH(), o.StrideW()], auto_pad="SAME_UPPER" if o.Padding() == 0 else "VALID"))  # fmt: skip
            activation(f"t{y}_pool", o.FusedActivationFunction(), y)
        elif kind == "RESIZE_BILINEAR":
            o = options(op, tflite.ResizeBilinearOptions)
            (_, h0, w0, _), (_, h1, w1, _) = shape(ins[0]), shape(y)
            mode = "align_corners" if o.AlignCorners() else "half_pixel" if o.HalfPixelCenters() else "asymmetric"
            scales = init(np.array([1, 1, h1 / h0, w1 / w0], np.float32), "scales")
            nodes.append(helper.make_node("Resize", [names[ins[0]], "", scales], [out_name(y)], mode="linear",
                                          coordinate_transformation_mode=mode))  # fmt: skip
        elif kind == "DEPTH_TO_SPACE":
            o = options(op, tflite.DepthToSpaceOptions)
            nodes.append(helper.make_node("DepthToSpace", [names[ins[0]]], [out_name(y)], blocksize=o.BlockSize(), mode="DCR"))
        elif kind == "RESHAPE":
            if len(shape(ins[0])) != 4:
                raise NotImplementedError("RESHAPE of a non-image tensor")
            target = [int(v) for v in (const(ins[1]) if len(ins) > 1 and is_const(ins[1]) else shape(y))]
            if len(target) != 3:
                raise NotImplementedError(f"RESHAPE to {target}")
            nodes.append(helper.make_node("Transpose", [names[ins[0]]], [f"t{y}_nhwc"], perm=[0, 2, 3, 1]))
            new_shape = init(np.array([0, -1, target[-1]], np.int64), "shape")  # batch kept, (y, x, anchor) flattened
            nodes.append(helper.make_node("Reshape", [f"t{y}_nhwc", new_shape], [out_name(y)]))
        elif kind == "CONCATENATION":
            o = options(op, tflite.ConcatenationOptions)
            rank = len(shape(ins[0]))
            axis = o.Axis() % rank
            axis = _NHWC_TO_NCHW_AXIS[axis] if rank == 4 else axis
            nodes.append(helper.make_node("Concat", [names[i] for i in ins], [f"t{y}_cat"], axis=axis))
            activation(f"t{y}_cat", o.FusedActivationFunction(), y)
        else:
            raise NotImplementedError(f"TFLite operator {kind} is not supported by this converter")

    outputs = []
    for i in graph_outputs:
        s = shape(i)
        dims = ["B", "N", s[-1]] if len(s) == 3 else ["B"] + [None] * (len(s) - 1)
        outputs.append(helper.make_tensor_value_info(names[i], TensorProto.FLOAT, dims))
    inputs = [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["B", channels, "H", "W"])]
    onnx_graph = helper.make_graph(nodes, Path(tflite_path).stem, inputs, outputs, inits)
    out = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="vpd-redactor tflite_onnx")
    out.ir_version = 8
    onnx.checker.check_model(out)
    onnx.save(out, str(onnx_path))
