"""Pseudonyms are consistent within a run and fresh per run; whole, chunked and split input agree."""

from __future__ import annotations

import random
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from service.masking import Masker, MaskState, mask, mask_stream, mask_text
from service.masking.stream import mask_lines_stream
from service.models import LogFile, RawRun

from .corpus import build_corpus


def _run(*files: list[str]) -> RawRun:
    return RawRun(files=[LogFile(name=f"rank{i}.log", lines=lines) for i, lines in enumerate(files)])


def test_same_host_gets_the_same_placeholder_in_every_file(masker: Masker) -> None:
    log = mask(
        _run(
            ["gpu-node-017:11:11 [0] NCCL INFO Bootstrap", "MASTER_ADDR=gpu-node-017"],
            ["[rank9]: Connection to gpu-node-017 failed", "gpu-node-018:12:12 [1] NCCL INFO Bootstrap"],
        ),
        masker,
    )
    a, b = log.files
    assert a.lines[0].startswith("<HOST_1>:") and a.lines[1] == "MASTER_ADDR=<HOST_1>"
    assert b.lines[0] == "[rank9]: Connection to <HOST_1> failed"
    assert b.lines[1].startswith("<HOST_2>:")
    assert log.counts == {"hostname": 4}


def test_same_user_ip_and_email_are_consistent_across_lines(masker: Masker) -> None:
    text, counts = mask_text(
        "/home/alice/x.py USER=alice\neth0:10.0.0.7<0> and 10.0.0.7:29500\nalice@acme.com bob@acme.com alice@acme.com",
        masker,
    )
    assert text == (
        "/home/<USER_1>/x.py USER=<USER_1>\neth0:<IP_1><0> and <IP_1>:29500\n<EMAIL_1> <EMAIL_2> <EMAIL_1>"
    )
    assert counts == {"email": 3, "ip_address": 2, "username": 2}


def test_pseudonyms_are_fresh_for_every_call(masker: Masker) -> None:
    first, _ = mask_text("MASTER_ADDR=box-17 and box-18 via host: box-18", masker)
    second, _ = mask_text("host: box-18 then MASTER_ADDR=box-17", masker)
    # box-18 is learned from "host:" and masked wherever it recurs on the line and after
    assert first == "MASTER_ADDR=<HOST_1> and <HOST_2> via host: <HOST_2>"
    assert second == "host: <HOST_1> then MASTER_ADDR=<HOST_2>"


def test_secrets_get_fixed_placeholders_that_carry_nothing_of_the_value(masker: Masker) -> None:
    text, _ = mask_text("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa76543210", masker)
    assert text == "HF_TOKEN=<HF_TOKEN> <HF_TOKEN>"


def _whole(lines: list[str], masker: Masker) -> str:
    return mask_text("\n".join(lines), masker)[0]


def test_whole_chunked_and_split_input_give_identical_output(masker: Masker) -> None:
    lines = build_corpus(seed=5, rounds=2).lines
    text = "\n".join(lines) + "\n"
    # Streaming is one pass; a run held in memory also masks names before the line that taught them.
    whole_stream = "".join(line + "\n" for line in mask_lines_stream(lines, masker, MaskState()))
    whole_text, whole_counts = mask_text("\n".join(lines), masker)
    whole = whole_text + "\n"

    rng = random.Random(0)
    cuts = sorted(rng.sample(range(1, len(text)), 300))
    chunks = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    state = MaskState()
    chunked = "".join(mask_stream(chunks, masker, state))

    splits = sorted(rng.sample(range(1, len(lines)), 7))
    files = [lines[i:j] for i, j in zip([0, *splits], [*splits, len(lines)], strict=True)]
    split = mask(_run(*files), masker)
    split_text = "\n".join(line for f in split.files for line in f.lines) + "\n"

    assert chunked == whole_stream
    assert split_text == whole
    assert whole_counts == split.counts


def test_a_private_key_block_split_across_files_stays_masked(masker: Masker) -> None:
    log = mask(
        _run(["[rank0]: -----BEGIN PRIVATE KEY-----", "[rank0]: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"],
             ["[rank0]: Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6", "[rank0]: -----END PRIVATE KEY-----", "[rank0]: step 3"]),
        masker,
    )
    assert [line for f in log.files for line in f.lines] == [
        "[rank0]: <PRIVATE_KEY>",
        "[rank0]: <PRIVATE_KEY>",
        "[rank0]: <PRIVATE_KEY>",
        "[rank0]: <PRIVATE_KEY>",
        "[rank0]: step 3",
    ]
    assert log.counts == {"private_key": 1}


def test_an_unterminated_private_key_block_ends_at_the_first_ordinary_line(masker: Masker) -> None:
    text, _ = mask_text("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnV\nTraceback (most recent call last):", masker)
    assert text == "<PRIVATE_KEY>\n<PRIVATE_KEY>\nTraceback (most recent call last):"


def test_a_netrc_entry_across_lines_is_a_wandb_key(masker: Masker) -> None:
    key = "0123456789abcdef0123456789abcdef01234567"
    text, counts = mask_text(f"machine api.wandb.ai\n  login alice\n  password {key}", masker)
    assert text == "machine api.wandb.ai\n  login <USER_1>\n  password <WANDB_API_KEY>"
    assert counts == {"username": 1, "wandb_key": 1}


def test_file_names_are_masked_with_the_run_table(masker: Masker) -> None:
    log = mask(RawRun(files=[LogFile(name="/home/alice/logs/rank0.log", lines=["USER=alice"])]), masker)
    assert log.files[0].name == "/home/<USER_1>/logs/rank0.log"
    assert log.files[0].lines == ["USER=<USER_1>"]


def test_mask_text_keeps_empty_lines_and_trailing_newlines(masker: Masker) -> None:
    assert mask_text("", masker) == ("", {})
    assert mask_text("a\n\nb\n", masker)[0] == "a\n\nb\n"


def test_concurrent_runs_share_one_masker_without_crosstalk(masker: Masker) -> None:
    corpus = build_corpus(seed=7, rounds=1)
    runs = [corpus.lines[i::4] for i in range(4)] * 3
    expected = [mask(_run(r), masker) for r in runs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda r: mask(_run(r), masker), runs))
    assert got == expected


def test_masking_never_opens_a_network_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("masking tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    fresh = Masker()  # a fresh engine: set-up must not fetch a public-suffix list or a spaCy model
    text, counts = mask_text("alice@acme-research.com via https://db.acme-research.com:5432 and x@y.zz", fresh)
    assert text == "<EMAIL_1> via https://<HOST_1>:5432 and x@y.zz"
    assert counts == {"email": 1, "hostname": 1}


def test_other_ranks_interleaved_with_a_private_key_block_neither_end_it_nor_get_masked(masker: Masker) -> None:
    text, counts = mask_text(
        "[rank0]: -----BEGIN PRIVATE KEY-----\n"
        "[rank1]: step 12 loss 2.31\n"
        "[rank0]: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
        "[rank2]: step 12 loss 2.29\n"
        "[rank0]: Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6==\n"
        "[rank0]: -----END PRIVATE KEY-----",
        masker,
    )
    assert text.split("\n") == [
        "[rank0]: <PRIVATE_KEY>",
        "[rank1]: step 12 loss 2.31",
        "[rank0]: <PRIVATE_KEY>",
        "[rank2]: step 12 loss 2.29",
        "[rank0]: <PRIVATE_KEY>",
        "[rank0]: <PRIVATE_KEY>",
    ]
    assert counts == {"private_key": 1}


def test_a_learned_name_is_masked_wherever_it_recurs_in_the_run(masker: Masker) -> None:
    raw = "experiment tag mchen-early\nSLURM_JOB_USER=mchen\nresumed from /data/mchen/ckpt; mchen-exp; mchenko stays"
    text, counts = mask_text(raw, masker)
    # The whole run is in memory: the mention before the teaching line is masked too.
    assert text.split("\n") == [
        "experiment tag <USER_1>-early",
        "SLURM_JOB_USER=<USER_1>",
        "resumed from /data/<USER_1>/ckpt; <USER_1>-exp; mchenko stays",
    ]
    assert counts == {"username": 4}
    # Streaming cannot look back: from the teaching line on.
    streamed = list(mask_lines_stream(raw.split("\n"), masker, MaskState()))
    assert streamed[0] == "experiment tag mchen-early"
    assert streamed[2] == "resumed from /data/<USER_1>/ckpt; <USER_1>-exp; mchenko stays"


def test_common_words_and_short_names_are_not_learned(masker: Masker) -> None:
    text, _ = mask_text("USER=ray\nHOSTNAME=worker\nray.init(); worker 3 started; /home/dev/x; /dev/shm", masker)
    assert text.split("\n")[2] == "ray.init(); worker 3 started; /home/<USER_2>/x; /dev/shm"


def test_an_ipv4_mapped_address_shares_its_ipv4_pseudonym(masker: Masker) -> None:
    text, _ = mask_text("Using ib0:10.44.1.17<0>\nlocalGid ::ffff:10.44.1.17 remoteGid ::ffff:10.44.1.18", masker)
    assert text == "Using ib0:<IP_1><0>\nlocalGid <IP_1> remoteGid <IP_2>"


@pytest.mark.parametrize(
    "begin",
    ["[rank3]: ", "[default1]:", "2026-11-30 04:12:09 gpu-node-017: ", "7: "],
    ids=["rank prefix", "default prefix", "timestamp and host", "srun label"],
)
def test_a_key_whose_begin_line_has_a_prefix_and_whose_body_lines_do_not_is_masked(masker: Masker, begin: str) -> None:
    """A key printed as one multi-line string: only its first line gets the launcher's prefix."""
    body = ["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
            "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"]
    text, _ = mask_text("\n".join([begin + "-----BEGIN RSA PRIVATE KEY-----", *body,
                                        "-----END RSA PRIVATE KEY-----", begin + "step 12 loss 2.31"]), masker)
    assert not any(b in text for b in body), text
    assert "END RSA PRIVATE KEY" not in text
    assert text.splitlines()[-1].endswith("step 12 loss 2.31")  # the block ended: ordinary lines stay


def test_crashdoc_mask_prints_what_the_pipeline_masks_second_pass_included(tmp_path, capsys, masker: Masker) -> None:
    """A name taught on a late line is masked on the earlier ones by ``crashdoc mask`` too, as in a diagnosis."""
    from service.cli import main
    from service.ingest import Limits, ingest, sources_from_paths
    from service.masking import mask
    from service.settings import get_settings

    lines = [
        "[rank0]: loading /shared/ckpt/tnakamura-run7/step_100.pt",
        "[rank0]: tnakamura-run7 resumed at step 100",
        "SLURM_JOB_USER=tnakamura",
        "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    assert main(["mask", str(log)]) == 0
    printed = capsys.readouterr().out.splitlines()
    run = ingest(sources_from_paths([str(log)]), Limits.local(get_settings().max_line_chars))
    assert printed == mask(run, masker).files[0].lines
    assert not any("tnakamura" in line for line in printed), printed


@pytest.mark.parametrize(
    ("teacher", "code_line"),
    [
        ("postgresql://mlflow:Xk29fPq7wLm@db.corp.internal:5432/mlflow", "mlflow.exceptions.MlflowException: RESOURCE_DOES_NOT_EXIST"),
        ("SLURM_JOB_USER=optuna", "[rank0]: import optuna"),
        ("user: celery", '  File "/opt/venv/lib/python3.11/site-packages/celery/app/task.py", line 411, in __call__'),
    ],
    ids=["db role named mlflow", "user named optuna", "user named celery"],
)
def test_a_package_name_learned_as_a_user_is_not_masked_as_code(masker: Masker, teacher: str, code_line: str) -> None:
    text, _ = mask_text(teacher + "\n" + code_line, masker)
    assert text.splitlines()[1] == code_line


def test_a_learned_name_is_still_masked_outside_code(masker: Masker) -> None:
    text, _ = mask_text("SLURM_JOB_USER=rkowalsk\nwriting to /shared/rkowalsk/ckpt; import torch\nrkowalsk.log", masker)
    assert "rkowalsk" not in text.splitlines()[1]
    assert "rkowalsk" not in text.splitlines()[2]  # a file named after the person, not a module


def test_a_kubernetes_env_entry_named_like_a_secret_has_its_value_masked(masker: Masker) -> None:
    text, counts = mask_text(
        '    env:\n    - name: REDIS_PASSWORD\n      value: "RA5K3G6t\\"9EwNsRwL!Tty&oOCyT4"\n    - name: NCCL_DEBUG\n      value: INFO',
        masker,
    )
    assert "RA5K3G6t" not in text and "oOCyT4" not in text
    assert text.splitlines()[2] == "      value: <SECRET>"
    assert text.splitlines()[4] == "      value: INFO"  # an ordinary setting's value stays
    assert counts["secret"] == 1
