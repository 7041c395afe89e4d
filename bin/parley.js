#!/usr/bin/env node
// The `parley` command. Parley's sources are TypeScript run through tsx's loader, so there is no build step
// between a checkout and a running platform.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('@parley/control-plane/cli');
process.exit(await main(process.argv.slice(2)));
