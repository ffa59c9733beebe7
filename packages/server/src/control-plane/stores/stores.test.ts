import { describeControlPlaneStore } from '../../testing/describe-control-plane-store.js';
import { createMemoryControlPlaneStore } from './memory.js';

describeControlPlaneStore('memory', { create: async () => createMemoryControlPlaneStore() });
