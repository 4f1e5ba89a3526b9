#!/usr/bin/env node
// The `cxm` operator CLI. Our sources are TypeScript; tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
