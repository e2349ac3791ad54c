"""The compact letter display of paired comparisons: models that share a letter are not resolved from one
another (docs/compare.md)."""

from __future__ import annotations


def compact_letters(names, resolved_pairs) -> dict[str, str]:
    """Compact letter display: models sharing a letter are not resolved from one another.

    Models are taken in the order given (by score); each letter covers a maximal run of models whose pairs
    are all unresolved (the insert-and-absorb algorithm of Piepho 2004, for a linear order it is exact).

    Parameters
    ----------
    names : sequence of str
        Models in display order.
    resolved_pairs : set of frozenset
        The pairs whose difference is resolved.

    Returns
    -------
    dict
        ``{model: letters}``.

    Examples
    --------
    >>> compact_letters(["a", "b", "c"], {frozenset({"a", "c"})})
    {'a': 'a', 'b': 'ab', 'c': 'b'}
    """
    names = list(names)
    groups: list[set] = [set(names)]
    for pair in resolved_pairs:
        x, y = tuple(pair)
        new = []
        for g in groups:
            if x in g and y in g:
                new += [g - {x}, g - {y}]
            else:
                new.append(g)
        # absorb groups contained in another
        new = [g for k, g in enumerate(new) if g and not any((g < h) or (g == h and j < k)
                                                             for j, h in enumerate(new) if j != k)]
        groups = new
    order = {n: k for k, n in enumerate(names)}
    groups.sort(key=lambda g: (min(order[n] for n in g), -len(g)))
    letters = {n: "" for n in names}
    for k, g in enumerate(groups):
        letter = _letter(k)
        for n in g:
            letters[n] += letter
    return {n: "".join(sorted(letters[n], key=_letter_rank)) for n in names}


def _letter(k: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    return alphabet[k] if k < 26 else alphabet[k // 26 - 1] + alphabet[k % 26]


def _letter_rank(c: str) -> int:
    return ord(c)
