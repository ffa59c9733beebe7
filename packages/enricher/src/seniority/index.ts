export { classifySeniority, type SeniorityClassification } from './classify.js';
