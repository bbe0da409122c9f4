// Each library as an application would use it: base URL and key only, otherwise its defaults.
// `once(key, maxRetries)` makes one short call (maxRetries undefined: the library's default) and
// returns its text; `retries` says whether the library retries a 429 by default; `noRetryAttempts`
// how many attempts it makes on a refusal that says not to retry (docs/CLIENTS.md explains each).

import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { generateText, streamText, tool, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { z } from 'zod';

const PROMPT = 'Say hello in a few words.';
const WEATHER = 'What is the weather in Sluice?';
/** The tool every case offers; the mock calls it with {"city":"sluice","days":1}. */
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
};

export function libraries({ base, keys }) {
  return [
    openAiChat(base, keys),
    openAiResponses(base, keys),
    anthropicSdk(base, keys),
    googleGenAi(base, keys),
    aiSdk('ai + @ai-sdk/openai', 'openai', (key, opts) => createOpenAI({ baseURL: `${base}/v1`, apiKey: key, ...opts })('claude'), keys),
    aiSdk('ai + @ai-sdk/anthropic', 'anthropic', (key, opts) => createAnthropic({ baseURL: `${base}/v1`, apiKey: key, ...opts })('claude'), keys),
    aiSdk('ai + @ai-sdk/google', 'gemini', (key, opts) => createGoogleGenerativeAI({ baseURL: `${base}/v1beta`, apiKey: key, ...opts })('gemini'), keys),
    langChain('@langchain/openai', 'openai', (key, maxRetries) => new ChatOpenAI({
      model: 'gemini', apiKey: key, maxTokens: 48, configuration: { baseURL: `${base}/v1` }, ...(maxRetries === undefined ? {} : { maxRetries }),
    }), keys),
    langChain('@langchain/openai (Responses)', 'openai', (key, maxRetries) => new ChatOpenAI({
      model: 'claude', apiKey: key, maxTokens: 48, useResponsesApi: true, configuration: { baseURL: `${base}/v1` },
      ...(maxRetries === undefined ? {} : { maxRetries }),
    }), keys),
    langChain('@langchain/anthropic', 'anthropic', (key, maxRetries) => new ChatAnthropic({
      model: 'claude', apiKey: key, maxTokens: 48, anthropicApiUrl: base, ...(maxRetries === undefined ? {} : { maxRetries }),
    }), keys),
  ];
}

function openAiChat(base, keys) {
  const client = (key, maxRetries) => new OpenAI({ baseURL: `${base}/v1`, apiKey: key, ...(maxRetries === undefined ? {} : { maxRetries }) });
  const tools = [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: SCHEMA } }];
  return {
    name: 'openai (chat.completions)', family: 'openai', retries: true, noRetryAttempts: 1,
    plain: async () => {
      const r = await client(keys.main).chat.completions.create({ model: 'gemini', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] });
      return { text: r.choices[0].message.content, model: r.model, usage: r.usage?.total_tokens };
    },
    stream: async () => {
      const stream = await client(keys.main).chat.completions.create({
        model: 'claude', max_tokens: 32, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: PROMPT }],
      });
      let text = '';
      let chunks = 0;
      let usage;
      for await (const c of stream) {
        chunks++;
        text += c.choices[0]?.delta?.content ?? '';
        usage = c.usage?.total_tokens ?? usage;
      }
      return { text, chunks, usage };
    },
    tools: async () => {
      const c = client(keys.main);
      const messages = [{ role: 'user', content: WEATHER }];
      const first = await c.chat.completions.create({ model: 'claude', max_tokens: 64, messages, tools });
      const call = first.choices[0].message.tool_calls[0];
      messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny' });
      const second = await c.chat.completions.create({ model: 'claude', max_tokens: 64, messages, tools });
      return { arguments: JSON.parse(call.function.arguments), text: second.choices[0].message.content };
    },
    once: async (key, maxRetries) => (await client(key, maxRetries).chat.completions.create({
      model: 'fast-chat', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }],
    })).choices[0].message.content,
  };
}

function openAiResponses(base, keys) {
  const client = (key, maxRetries) => new OpenAI({ baseURL: `${base}/v1`, apiKey: key, ...(maxRetries === undefined ? {} : { maxRetries }) });
  const tools = [{ type: 'function', name: 'get_weather', description: 'The weather', parameters: SCHEMA, strict: false }];
  return {
    name: 'openai (responses)', family: 'openai', retries: true, noRetryAttempts: 1,
    plain: async () => {
      const r = await client(keys.main).responses.create({ model: 'claude', instructions: 'Be brief.', input: PROMPT, max_output_tokens: 32 });
      return { text: r.output_text, model: r.model, usage: r.usage?.total_tokens };
    },
    stream: async () => {
      const stream = await client(keys.main).responses.create({ model: 'gemini', input: PROMPT, max_output_tokens: 32, stream: true });
      let text = '';
      let chunks = 0;
      let usage;
      for await (const e of stream) {
        chunks++;
        if (e.type === 'response.output_text.delta') {
          text += e.delta;
        }
        if (e.type === 'response.completed') {
          usage = e.response.usage?.total_tokens;
        }
      }
      return { text, chunks, usage };
    },
    tools: async () => {
      const c = client(keys.main);
      const input = [{ role: 'user', content: WEATHER }];
      const first = await c.responses.create({ model: 'gemini', input, tools, max_output_tokens: 64 });
      const call = first.output.find((i) => i.type === 'function_call');
      input.push(call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' });
      const second = await c.responses.create({ model: 'gemini', input, tools, max_output_tokens: 64 });
      return { arguments: JSON.parse(call.arguments), text: second.output_text };
    },
    once: async (key, maxRetries) => (await client(key, maxRetries).responses.create({
      model: 'claude', input: 'Hi', max_output_tokens: 8,
    })).output_text,
  };
}

function anthropicSdk(base, keys) {
  const client = (key, maxRetries) => new Anthropic({ baseURL: base, apiKey: key, ...(maxRetries === undefined ? {} : { maxRetries }) });
  const tools = [{ name: 'get_weather', description: 'The weather', input_schema: SCHEMA }];
  const text = (m) => m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  return {
    name: '@anthropic-ai/sdk', family: 'anthropic', retries: true, noRetryAttempts: 1,
    plain: async () => {
      const m = await client(keys.main).messages.create({ model: 'claude', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] });
      return { text: text(m), model: m.model, usage: m.usage.output_tokens };
    },
    stream: async () => {
      const stream = client(keys.main).messages.stream({ model: 'claude', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] });
      let chunks = 0;
      stream.on('streamEvent', () => chunks++);
      const m = await stream.finalMessage();
      return { text: text(m), chunks, usage: m.usage.output_tokens };
    },
    tools: async () => {
      const c = client(keys.main);
      const messages = [{ role: 'user', content: WEATHER }];
      const first = await c.messages.create({ model: 'claude', max_tokens: 64, messages, tools });
      const use = first.content.find((b) => b.type === 'tool_use');
      messages.push({ role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] });
      const second = await c.messages.create({ model: 'claude', max_tokens: 64, messages, tools });
      return { arguments: use.input, text: text(second) };
    },
    extras: [{
      name: 'models',
      fn: async () => {
        const page = await client(keys.main).models.list();
        return { text: page.data.map((m) => m.id).join(',') };
      },
    }],
    once: async (key, maxRetries) => text(await client(key, maxRetries).messages.create({
      model: 'claude', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }],
    })),
  };
}

function googleGenAi(base, keys) {
  const client = (key, apiVersion) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base, ...(apiVersion ? { apiVersion } : {}) } });
  const config = { tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'The weather', parametersJsonSchema: SCHEMA }] }] };
  return {
    name: '@google/genai', family: 'gemini', retries: false, noRetryAttempts: 1,
    plain: async () => {
      const r = await client(keys.main).models.generateContent({ model: 'gemini', contents: PROMPT, config: { maxOutputTokens: 32 } });
      return { text: r.text, usage: r.usageMetadata?.totalTokenCount };
    },
    stream: async () => {
      let text = '';
      let chunks = 0;
      for await (const c of await client(keys.main).models.generateContentStream({ model: 'gemini', contents: PROMPT, config: { maxOutputTokens: 32 } })) {
        chunks++;
        text += c.text ?? '';
      }
      return { text, chunks };
    },
    tools: async () => {
      const c = client(keys.main);
      const contents = [{ role: 'user', parts: [{ text: WEATHER }] }];
      const first = await c.models.generateContent({ model: 'gemini', contents, config });
      const call = first.functionCalls[0];
      contents.push({ role: 'model', parts: [{ functionCall: call }] },
        { role: 'user', parts: [{ functionResponse: { name: call.name, response: { output: 'sunny' } } }] });
      const second = await c.models.generateContent({ model: 'gemini', contents, config });
      return { arguments: call.args, text: second.text };
    },
    extras: [
      {
        name: 'v1',
        fn: async () => ({ text: (await client(keys.main, 'v1').models.generateContent({ model: 'gemini', contents: PROMPT })).text }),
      },
      {
        name: 'models',
        fn: async () => {
          const one = await client(keys.main).models.get({ model: 'gemini' });
          const names = [];
          for await (const m of await client(keys.main).models.list()) {
            names.push(m.name);
          }
          return { text: `${one.name}; ${names.join(',')}` };
        },
      },
      {
        name: 'embed',
        fn: async () => {
          const r = await client(keys.main).models.embedContent({ model: 'gemini-embed', contents: ['Hello', 'Bye'] });
          return { text: `${r.embeddings.length} embeddings of ${r.embeddings[0].values.length}` };
        },
      },
    ],
    // The Gen AI SDK retries nothing unless told to (httpOptions.retryOptions).
    once: async (key) => (await client(key).models.generateContent({ model: 'gemini', contents: 'Hi', config: { maxOutputTokens: 8 } })).text,
  };
}

function aiSdk(name, family, model, keys) {
  const weather = tool({
    description: 'The weather',
    inputSchema: z.object({ city: z.string(), days: z.number().int() }),
    execute: async () => 'sunny',
  });
  const retries = (maxRetries) => (maxRetries === undefined ? {} : { maxRetries });
  return {
    // The AI SDK reads retry-after-ms and Retry-After but not x-should-retry: a 429 that says not to
    // retry is still tried three times, 2 s and 4 s apart.
    name, family, retries: true, noRetryAttempts: 3,
    plain: async () => {
      const r = await generateText({ model: model(keys.main), prompt: PROMPT, maxOutputTokens: 32 });
      return { text: r.text, model: r.response.modelId, usage: r.usage.totalTokens };
    },
    stream: async () => {
      const r = streamText({ model: model(keys.main), prompt: PROMPT, maxOutputTokens: 32 });
      let text = '';
      let chunks = 0;
      for await (const t of r.textStream) {
        chunks++;
        text += t;
      }
      return { text, chunks, usage: (await r.usage).totalTokens };
    },
    tools: async () => {
      const r = await generateText({ model: model(keys.main), prompt: WEATHER, tools: { get_weather: weather }, stopWhen: stepCountIs(2) });
      return { arguments: r.steps[0].toolCalls[0].input, text: r.text, steps: r.steps.length };
    },
    once: async (key, maxRetries) => (await generateText({ model: model(key), prompt: 'Hi', maxOutputTokens: 8, ...retries(maxRetries) })).text,
  };
}

function langChain(name, family, model, keys) {
  const weather = { type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: SCHEMA } };
  const text = (m) => (typeof m.content === 'string' ? m.content
    : m.content.filter((p) => p.type === 'text').map((p) => p.text).join(''));
  return {
    // LangChain retries a 429 only when its Retry-After is at most 60 s; it stops on OpenAI's
    // insufficient_quota and on a 429 without any hint.
    name, family, retries: true, noRetryAttempts: 1,
    plain: async () => {
      const m = await model(keys.main).invoke(PROMPT);
      return { text: text(m), usage: m.usage_metadata?.total_tokens };
    },
    stream: async () => {
      let out = '';
      let chunks = 0;
      for await (const c of await model(keys.main).stream(PROMPT)) {
        chunks++;
        out += text(c);
      }
      return { text: out, chunks };
    },
    tools: async () => {
      const bound = model(keys.main).bindTools([weather]);
      const human = new HumanMessage(WEATHER);
      const first = await bound.invoke([human]);
      const call = first.tool_calls[0];
      const second = await bound.invoke([human, first, new ToolMessage({ content: 'sunny', tool_call_id: call.id })]);
      return { arguments: call.args, text: text(second) };
    },
    once: async (key, maxRetries) => text(await model(key, maxRetries).invoke('Hi')),
  };
}
