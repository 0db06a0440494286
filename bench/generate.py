"""Generate large synthetic packages for benchmarks and scale tests (deterministic).

STYLE.yaml is limited to 256 KiB, so a large package keeps its rules as rule files under
`rules/` (at most 10,000) pulled in by one `from` entry, as a real large package would.
"""

from __future__ import annotations

from pathlib import Path


def rule_file(i: int) -> str:
    """One of five realistic rule shapes as a rule file, varied by index."""
    kind = i % 5
    if kind == 0:
        return (
            f"---\ntarget: tool\ntool: shell\naction: block\n"
            f"when: 'tool.input.command shell_regex \"^tool{i} .*--danger\"'\n---\n"
            f"Command tool{i} with --danger is not allowed.\n"
        )
    if kind == 1:
        return (
            f"---\ntarget: tool\ntool: [file.edit, file.write]\n"
            f'when: \'file.path glob "src/mod{i}/**/*.rs" and tool.added regex '
            f'r"\\.unwrap\\(\\)"\'\n---\n'
            f"Module mod{i} returns errors with ? instead of unwrap().\n"
        )
    if kind == 2:
        return (
            f"---\ntarget: tool\ntool: file.read\naction: warn\n"
            f'when:\n  any:\n    - {{field: file.path, op: glob, pattern: "secrets{i}/**"}}\n'
            f'    - {{field: file.path, op: ends_with, pattern: ".key{i}"}}\n'
            f"model_text: Files under secrets{i} are sensitive.\n---\n"
            f"Reading secrets{i}; keep their content out of the chat.\n"
        )
    if kind == 3:
        return (
            f"---\ntarget: event\nevent: prompt.submitted\n"
            f"when: 'prompt contains \"ticket-{i}\"'\n---\n"
            f"Ticket {i} has a runbook in docs/runbooks/{i}.md.\n"
        )
    return (
        f"---\ntarget: tool\ntool: web.fetch\naction: block\n"
        f"when: 'tool.input.url regex \"^https?://blocked{i}\\\\.example\"'\n---\n"
        f"Host blocked{i}.example is not allowed.\n"
    )


def write_package(folder: Path, n: int, name: str = "scale") -> Path:
    rules = folder / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    head = (
        f"spec: style/v0.3\nname: {name}\nversion: 1.0.0\ndescription: {n} generated rules\n"
        "budget: {per_rule: 400, per_event: 100000000}\nrules:\n  - from: rules/*.md\n"
    )
    (folder / "STYLE.yaml").write_text(head, "utf-8")
    for i in range(n):
        (rules / f"r{i:05d}.md").write_text(rule_file(i), "utf-8")
    return folder
