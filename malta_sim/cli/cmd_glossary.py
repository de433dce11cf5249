"""``malta-sim glossary``: what every column of a result file means, and the end reasons."""

from __future__ import annotations

import click


@click.command("glossary")
@click.option("--markdown", is_flag=True, help="Print the Markdown page (docs/results.md) instead of text.")
def command(markdown):
    """Explain the columns of a result file and the names of the end reasons."""
    from ..analysis.glossary import glossary_markdown, glossary_text

    click.echo(glossary_markdown() if markdown else glossary_text(), nl=not markdown)
