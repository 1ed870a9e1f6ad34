"""Classical DP (seed 003, Lemma 1): the neighbouring relations (:mod:`.neighbours`), δ by
brute force over ordered neighbouring pairs and by counts for symmetric mechanisms
(:mod:`.brute`), and the brute force sharded over workers in two phases (:mod:`.sharded`)."""
