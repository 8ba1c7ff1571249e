"""Whole logs at once: assemble a JSONL file of requests (`run`, `job`, `requests`), write the request files of
the providers' batch APIs (`emit`), and check a JSONL file of answers against the assemblies (`check`,
`answers`, `check_page`).

One module per job; `evidencepack batch` and `evidencepack batch-check` (`batch.cli`) only wire them. Every
job streams: memory follows a few chunks of requests (plus the set of ids seen), never the whole file. This
package imports nothing on its own, so registering the commands costs the CLI nothing.
"""
