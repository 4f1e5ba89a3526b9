// Loaded with `node --import` ahead of the program the import bench measures (the real `cxm`):
// at exit it writes the process's peak resident set size (process.resourceUsage().maxRSS, in KB)
// to the file named by CXM_BENCH_MAX_RSS_FILE. The kernel keeps that peak, so no sampling can miss
// it. Plain JavaScript: it loads before cxm.mjs registers tsx.
import { writeFileSync } from 'node:fs';

const target = process.env.CXM_BENCH_MAX_RSS_FILE;
if (target) process.on('exit', () => writeFileSync(target, String(process.resourceUsage().maxRSS)));
