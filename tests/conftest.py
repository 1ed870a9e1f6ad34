import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from slow_marks import pytest_collection_modifyitems  # noqa: F401  (registered as this conftest's hook)
