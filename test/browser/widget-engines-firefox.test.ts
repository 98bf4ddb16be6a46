// The widget's essential journeys (journeys.ts) in Firefox.
import { journeysIn } from './journeys';

journeysIn('firefox');
