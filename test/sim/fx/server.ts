/**
 * A rates source shaped like the ECB's daily euro reference rates (eurofxref-daily.xml): the
 * same XML, the same units (currency per 1 EUR). Knobs: the rates, the date, an error status.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FxSim {
  url: string;
  requests(): number;
  set(o: { rates?: Record<string, string>; date?: string; status?: number; body?: string }): void;
  close(): Promise<void>;
}

export function ecbXml(date: string, rates: Record<string, string>): string {
  const cubes = Object.entries(rates)
    .map(([c, r]) => `\t\t\t<Cube currency='${c}' rate='${r}'/>`)
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${date}'>
${cubes}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;
}

export async function startFxSim(
  initial: Record<string, string> = { USD: "1.0812", GBP: "0.8350", JPY: "163.42" },
): Promise<FxSim> {
  let rates = initial;
  let date = "2026-11-23";
  let status = 200;
  let body: string | undefined;
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    if (req.method !== "GET" || req.url !== "/stats/eurofxref/eurofxref-daily.xml") {
      res.writeHead(404).end();
      return;
    }
    if (status !== 200) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/xml" }).end(body ?? ecbXml(date, rates));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/stats/eurofxref/eurofxref-daily.xml`,
    requests: () => count,
    set(o) {
      if (o.rates) rates = o.rates;
      if (o.date) date = o.date;
      if (o.status) status = o.status;
      body = o.body;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
