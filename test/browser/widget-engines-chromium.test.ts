// The widget's essential journeys (journeys.ts) in Chromium.
import { journeysIn } from './journeys';

journeysIn('chromium');
