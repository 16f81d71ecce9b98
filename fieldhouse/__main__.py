from __future__ import annotations

from fieldhouse.cli import main

raise SystemExit(main())
