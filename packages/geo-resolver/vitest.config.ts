import { packageProject } from '../../vitest.shared.js';

export default packageProject('geo-resolver');
