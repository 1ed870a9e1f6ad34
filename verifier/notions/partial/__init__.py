"""Partial knowledge (seed 003, Definitions 3, 5–7): the APK, PPK and noiseless cases of a
joint table (:mod:`.cases`), the privacy losses of shifted count laws (:mod:`.shift_loss`),
and Θ-reducibility (thesis Definition 59, :mod:`.reducible`)."""
