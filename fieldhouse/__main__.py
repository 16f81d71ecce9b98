from __future__ import annotations

from fieldhouse.console import main

raise SystemExit(main())
