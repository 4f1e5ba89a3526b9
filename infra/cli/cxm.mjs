#!/usr/bin/env -S node --max-semi-space-size=16
// The `cxm` operator CLI. Our sources are TypeScript; tsx compiles them on the fly.
// The young generation is held at 16 MB a semi-space: Node 24's V8 sizes it by the machine's memory,
// and an import, which streams its file, then peaks tens of MB higher for no gain in speed (the
// bench's import section, which starts the CLI with this line's flags, holds it under its goal).
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
