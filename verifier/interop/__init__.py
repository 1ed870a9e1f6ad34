"""Interoperation with privacy accountants (optional extras; see :mod:`.accounting`)."""
