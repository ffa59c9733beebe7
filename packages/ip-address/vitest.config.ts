import { packageProject } from '../../vitest.shared.js';

export default packageProject('ip-address');
