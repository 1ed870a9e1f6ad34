"""The command layer under :mod:`verifier.cli`: the typer application and its exit codes
(:mod:`.app`), shared options (:mod:`.common`, :mod:`.options`, :mod:`.executor_options`),
the one-line error report (:mod:`.failure`) and the command logic of ``plrv compose``
(:mod:`.compose`)."""
