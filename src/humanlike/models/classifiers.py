"""Classifiers from other model libraries, as modules whose outputs the package maps to categories.

- **CLIP-style zero-shot classifiers** (``open_clip``): every category is described by prompts
  (``"a photo of a {category}."``, ...); the text embeddings of a category's prompts are averaged and
  normalised (the zero-shot recipe of Radford et al. 2021), and the classifier's outputs are the scaled
  cosine similarities of the image embedding with each category: one output per category, in order.
- **Hugging Face image classifiers** (``transformers``): the model's logits (``.logits``); ImageNet-1k
  classifiers map to the 16 categories with the packaged table like torchvision and timm models.

Built by :mod:`humanlike.models.spec` (sources ``clip`` and ``hf``); see
docs/your-model-against-the-benchmark.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import nn

#: The prompt templates of every category (a small ensemble of CLIP's ImageNet templates).
DEFAULT_TEMPLATES = ("a photo of a {}.", "a blurry photo of a {}.", "a black and white photo of a {}.",
                     "a drawing of a {}.", "a sketch of a {}.", "a photo of the {}.")


def category_prompts(categories: Sequence[str] | Mapping[str, Sequence[str]],
                     templates: Sequence[str] = DEFAULT_TEMPLATES) -> dict[str, list[str]]:
    """The prompts of each category: given ones, or ``templates`` filled with the category's name.

    Parameters
    ----------
    categories : sequence of str, or dict of str to list of str
        Category names (each gets every template), or category -> its own prompts.
    templates : sequence of str
        Templates with one ``{}`` for the category name.

    Returns
    -------
    dict of str to list of str
        Category -> prompts, in the categories' order.

    Raises
    ------
    ValueError
        For no category, or a category without prompts.

    Examples
    --------
    >>> category_prompts(["cat", "dog"], ["a photo of a {}."])
    {'cat': ['a photo of a cat.'], 'dog': ['a photo of a dog.']}
    >>> category_prompts({"cat": ["a cat"], "dog": ["a dog", "a puppy"]})["dog"]
    ['a dog', 'a puppy']
    """
    if isinstance(categories, Mapping):
        prompts = {str(c): [str(p) for p in ([ps] if isinstance(ps, str) else ps)] for c, ps in categories.items()}
    else:
        prompts = {str(c): [t.format(c) for t in templates] for c in categories}
    if not prompts:
        raise ValueError("a zero-shot classifier needs at least one category")
    empty = [c for c, ps in prompts.items() if not ps]
    if empty:
        raise ValueError(f"categories {empty} have no prompts")
    return prompts


class ZeroShotClassifier(nn.Module):
    """A CLIP-style model as a classifier over named categories: outputs ``logit_scale * cos(image, category)``.

    Parameters
    ----------
    clip : torch.nn.Module
        A model with ``encode_image(images)`` and ``encode_text(tokens)`` (open_clip's ``CLIP``).
    tokenizer : callable
        ``tokenizer(list of str) -> token tensor``.
    prompts : dict of str to list of str
        Category -> prompts (:func:`category_prompts`).

    Attributes
    ----------
    categories : list of str
        The categories, in output order.

    Examples
    --------
    >>> class ToyClip(nn.Module):  # images and texts embedded by a linear map of their mean
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.visual = nn.Linear(3, 4)
    ...         self.logit_scale = nn.Parameter(torch.tensor(0.0))
    ...     def encode_image(self, x):
    ...         return self.visual(x.mean(dim=(2, 3)))
    ...     def encode_text(self, tokens):
    ...         return torch.nn.functional.one_hot(tokens[:, 0] % 4, 4).float()
    >>> tokenizer = lambda texts: torch.tensor([[len(t)] for t in texts])
    >>> model = ZeroShotClassifier(ToyClip(), tokenizer, category_prompts(["cat", "dog"], ["{}", "a {}"]))
    >>> model.categories, model(torch.zeros(2, 3, 8, 8)).shape
    (['cat', 'dog'], torch.Size([2, 2]))
    """

    def __init__(self, clip: nn.Module, tokenizer, prompts: Mapping[str, Sequence[str]]):
        super().__init__()
        self.clip = clip
        self.categories = list(prompts)
        with torch.no_grad():
            rows = []
            for category in self.categories:
                text = clip.encode_text(tokenizer(list(prompts[category]))).float()
                text = text / text.norm(dim=-1, keepdim=True)
                mean = text.mean(dim=0)
                rows.append(mean / mean.norm())
        self.register_buffer("text_features", torch.stack(rows), persistent=False)
        scale = getattr(clip, "logit_scale", None)
        self.scale = float(scale.detach().exp()) if isinstance(scale, torch.Tensor) else 100.0

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Scaled cosine similarity of each image with each category.

        Parameters
        ----------
        images : torch.Tensor, (batch, 3, height, width)
            Preprocessed images.

        Returns
        -------
        torch.Tensor, (batch, categories)
            The logits, in :attr:`categories` order.
        """
        image = self.clip.encode_image(images).float()
        image = image / image.norm(dim=-1, keepdim=True)
        return self.scale * image @ self.text_features.to(image.device).T

    def category_mapping(self) -> dict[str, list[int]]:
        """Category -> its output index (the outputs are the categories).

        Returns
        -------
        dict of str to list of int
            ``{category: [index]}``.
        """
        return {c: [i] for i, c in enumerate(self.categories)}
