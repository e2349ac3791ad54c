"""Shared helpers of the model tests: torch is required in CI (a missing torch fails there), optional locally."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_torch():
    """Import torch/torchvision/timm or skip (locally) / fail (CI: the models extra must be installed)."""
    try:
        import timm  # noqa: F401
        import torch
        import torchvision  # noqa: F401
    except ImportError as err:
        message = f"the models extra is not installed ({err}); pip install humanlike[models]"
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message, allow_module_level=True)
    return torch


def tiny_module(n_out: int = 1000):
    """A small real CNN (conv, ReLU, pool, linear) with seeded weights that counts the images it sees."""
    import torch
    from torch import nn

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
            self.head = nn.Linear(32, n_out)
            self.images_seen = 0

        def forward(self, x):
            self.images_seen += x.shape[0]
            return self.head(self.features(x).flatten(1))

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        return Tiny()


def tiny_transform(size: int = 32):
    import torch
    from torchvision.transforms import v2

    return v2.Compose([v2.PILToTensor(), v2.Resize((size, size), antialias=True),
                       v2.ToDtype(torch.float32, scale=True), v2.Normalize([0.5] * 3, [0.5] * 3)])
