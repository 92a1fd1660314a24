import { type Attributes, type Span, type SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { SkillError } from '../errors/skill-error';

const tracer = trace.getTracer('skillrun');

/**
 * Runs `work` inside a span of its own (the active span while it runs, so what it calls nests
 * below), ended when it settles; a failure marks the span as an error named by its catalogue code
 * only, as a message may quote inputs. Without tracing the span is the API's no-op.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      const code = error instanceof SkillError ? error.code : 'INTERNAL_ERROR';
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      span.setAttribute('error.type', code);
      throw error;
    } finally {
      span.end();
    }
  });
}
