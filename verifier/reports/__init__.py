"""Reports of results: JSON (:mod:`.json_out`), the terminal (:mod:`.terminal`, :mod:`.text`),
plots (:mod:`.plot`), files (:mod:`.writers`) and progress bars (:mod:`.progress`)."""
