# A new formula for `opmfu registry add --target torch:baddbmm --from examples/new_formula.py`.


def baddbmm_flop(input, batch1, batch2, *args, **kwargs):
    """beta*input + alpha*(batch1 @ batch2) with [B, M, K] @ [B, K, N]: 2*B*M*K*N."""
    b, m, k = (int(d) for d in batch1.shape)
    n = int(batch2.shape[-1])
    return 2 * b * m * k * n
