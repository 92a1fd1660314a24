import type { IScaleTriggers } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaleTriggers';
import type { Values } from './values';

export interface PrometheusTrigger {
  name: string;
  /** AverageValue: the query's value per replica; Value: the query's value as a whole. */
  metricType: 'AverageValue' | 'Value';
  query: string;
  threshold: number;
}

/** A KEDA trigger on a query to the values' Prometheus (KEDA takes the threshold as a string). */
export function prometheusTrigger(values: Values, trigger: PrometheusTrigger): IScaleTriggers {
  return {
    type: 'prometheus',
    name: trigger.name,
    metricType: trigger.metricType,
    metadata: {
      serverAddress: values.prometheusUrl,
      query: trigger.query,
      threshold: String(trigger.threshold),
    },
  };
}
