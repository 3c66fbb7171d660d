#!/usr/bin/python3
"""Exports real PyTorch model definitions to ONNX, for `doppler graph import`.

Uses Debian's python3-torch and python3-onnx (scripts/install-deps.sh installs them with
DOPPLER_ONNX_EXPORT=1). Models:
  gpt2-block  a GPT-2-style decoder block (pre-LayerNorm, causal multi-head attention, GELU MLP)
  gpt2        N such blocks with token and position embeddings and a final LayerNorm
  resnet-block  a ResNet basic block (two 3x3 convolutions with batch norm, identity shortcut)
Batch and sequence length are exported as dynamic axes named "batch" and "seq": bind them with
`doppler graph import model.onnx --dim batch=8 --dim seq=512`.

  scripts/export_onnx.py gpt2-block --out block.onnx
  scripts/export_onnx.py gpt2 --layers 12 --d-model 768 --heads 12 --out gpt2.onnx
  scripts/export_onnx.py resnet-block --out resnet_block.onnx
"""
import argparse
import math
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit("export_onnx.py: needs PyTorch (Debian: apt install python3-torch python3-onnx), "
             "run with /usr/bin/python3")


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        h = self.heads
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // h))
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, heads)
        self.ln_2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, layers, d_model, heads, vocab, context):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(context, d_model)
        self.h = nn.ModuleList([Block(d_model, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("model", choices=["gpt2-block", "gpt2", "resnet-block"])
    p.add_argument("--out", required=True)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--d-model", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--opset", type=int, default=17)
    a = p.parse_args()
    torch.manual_seed(0)
    if a.model == "resnet-block":
        model = BasicBlock(a.channels).eval()
        example = torch.randn(1, a.channels, 56, 56)
        names, axes = ["x"], {"x": {0: "batch"}}
    elif a.model == "gpt2-block":
        model = Block(a.d_model, a.heads).eval()
        example = torch.randn(1, 8, a.d_model)
        names, axes = ["x"], {"x": {0: "batch", 1: "seq"}}
    else:
        model = GPT(a.layers, a.d_model, a.heads, a.vocab, 1024).eval()
        example = torch.zeros(1, 8, dtype=torch.long)
        names, axes = ["idx"], {"idx": {0: "batch", 1: "seq"}}
    with torch.no_grad():
        torch.onnx.export(model, (example,), a.out, input_names=names, output_names=["y"],
                          dynamic_axes=axes, opset_version=a.opset, do_constant_folding=True)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
