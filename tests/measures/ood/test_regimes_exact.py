"""The regime EM after its speed-up (issue 7) gives main's numbers to the bit.

Reference: tests/data/regimes_reference.npz, written by tests/data/make_regimes_reference.py from main at
8efe56a (before the speed-up): fits with every criterion, bootstrap stabilities whole and chunked, with undefined
scores, and the raw batched EM. The speed-ups change how the EM is laid out (buffers reused, one component at a
time, rows in threads; then compiled, row by row, with numpy's pairwise sums), never an operation on a number,
so every comparison here is exact.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanlike.measures.ood import mixture_em
from humanlike.measures.ood.mixture_em import em_rows, em_rows_in_threads, pairwise_sum

HERE = Path(__file__).resolve().parents[2] / "data"


def _maker():
    spec = importlib.util.spec_from_file_location("make_regimes_reference", HERE / "make_regimes_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reference():
    with np.load(HERE / "regimes_reference.npz") as stored:
        return {k: stored[k] for k in stored.files}


@pytest.mark.parametrize("cores", [1, 3])
def test_fits_bootstraps_and_em_equal_main_to_the_bit(reference, cores, monkeypatch):
    """One core, and three with rows split over threads: the same numbers as main."""
    monkeypatch.setattr(mixture_em, "available_cores", lambda: cores)
    monkeypatch.setattr(mixture_em, "MIN_EM_ROWS_PER_THREAD", 8)   # so that the small inputs here are split too
    computed = _maker().compute()
    assert sorted(computed) == sorted(reference)
    for name, value in computed.items():
        np.testing.assert_array_equal(value, reference[name], err_msg=name)


def _textbook_em(points, starts, reg_covar, max_iter, tol):
    """The plain EM of one row: its starts [(means, variances, weights)] iterated together until all converge."""
    params = [(m_.copy(), v_.copy(), w_.copy()) for m_, v_, w_ in starts]
    previous = np.full(len(params), -np.inf)
    for _ in range(max_iter):
        loglik = np.empty(len(params))
        for s, (m_, v_, w_) in enumerate(params):
            logp = np.log(w_)[:, None] - 0.5 * (np.log(2 * np.pi * v_)[:, None] + (points - m_[:, None]) ** 2
                                                / v_[:, None])
            top = logp.max(axis=0)
            lse = np.log(np.exp(logp - top).sum(axis=0)) + top
            loglik[s] = lse.sum()
            resp = np.exp(logp - lse)
            nk = resp.sum(axis=1) + 10 * np.finfo(float).eps
            new_mu = (resp * points).sum(axis=1) / nk
            params[s] = (new_mu, (resp * (points - new_mu[:, None]) ** 2).sum(axis=1) / nk + reg_covar,
                         nk / nk.sum())
        stop = np.all(np.abs(loglik - previous) / max(points.size, 1) < tol)
        previous = loglik
        if stop:
            break
    return params


def test_batched_em_equals_a_plain_loop_over_rows_and_starts():
    """Each row and start of the batched EM follows the textbook EM step for step, whatever runs beside it."""
    x, valid, mu0, var0, w0, reg_covar, max_iter, tol = _maker().em_inputs()
    x, valid, mu0, var0, w0 = x[:12], valid[:12], mu0[:12], var0[:12], w0[:12]
    mu, var, w, ll = em_rows_in_threads(x, valid, mu0, var0, w0, reg_covar, max_iter, tol)
    for row in range(x.shape[0]):
        params = _textbook_em(x[row][valid[row]], list(zip(mu0[row], var0[row], w0[row])), reg_covar, max_iter, tol)
        np.testing.assert_allclose(mu[row], [p[0] for p in params], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(var[row], [p[1] for p in params], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(w[row], [p[2] for p in params], rtol=1e-12, atol=1e-12)


def test_compiled_em_on_rows_longer_than_a_pairwise_block():
    """Rows of more than 128 points (numpy's sums then halve the range) follow the textbook EM too."""
    rng = np.random.default_rng(5)
    points = np.concatenate([rng.normal(0.0, 0.4, 150), rng.normal(-4.0, 0.6, 100), rng.normal(-9.0, 1.0, 50)])
    mu0 = np.array([[[0.5, -3.0, -8.0], [1.0, -5.0, -10.0]]])
    var0, w0 = np.ones_like(mu0), np.full_like(mu0, 1 / 3)
    mu, var, w, _ = em_rows(points[None, :], np.ones((1, points.size), bool), mu0, var0, w0, 1e-4, 400, 1e-10)
    params = _textbook_em(points, list(zip(mu0[0], var0[0], w0[0])), 1e-4, 400, 1e-10)
    np.testing.assert_allclose(mu[0], [p[0] for p in params], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(var[0], [p[1] for p in params], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w[0], [p[2] for p in params], rtol=1e-12, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 700), st.integers(0, 2**32 - 1), st.floats(-6, 6))
def test_pairwise_sum_is_numpys_sum_to_the_bit(n, seed, log_scale):
    """Every length (the plain, eight-way and halving regimes of numpy's pairwise summation) and magnitude."""
    terms = np.random.default_rng(seed).standard_normal(n) * 10.0 ** log_scale
    assert pairwise_sum(terms) == np.add.reduce(terms)


def test_compiled_em_rows_do_not_depend_on_their_neighbours():
    """A row alone, or among others in one call, gives the same bits (no state carried between rows)."""
    x, valid, mu0, var0, w0, reg_covar, max_iter, tol = _maker().em_inputs()
    together = em_rows(x, valid, mu0, var0, w0, reg_covar, max_iter, tol)
    for row in (0, 7, 51):
        alone = em_rows(x[row:row + 1], valid[row:row + 1], mu0[row:row + 1], var0[row:row + 1], w0[row:row + 1],
                        reg_covar, max_iter, tol)
        for part_alone, part_together in zip(alone, together):
            np.testing.assert_array_equal(part_alone[0], part_together[row])
