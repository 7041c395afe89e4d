-- What a call's launch needs that is no business of metaData (which API clients read and write):
--   media_stream_url  the engine's one-use stream URL of an outbound call, kept from dispatch until the carrier's
--                     answer request takes it (null once taken, and always for inbound and websocket calls);
--   function_tools    the call's own webhook tools (POST /voice/session functionTools), bearer tokens sealed with the
--                     key ring, used instead of the agent's when a scheduled call starts.
alter table call_records add column media_stream_url text;
alter table call_records add column function_tools jsonb;

update call_records
   set media_stream_url = meta_data ->> 'mediaStreamUrl',
       function_tools = meta_data -> 'callFunctionTools',
       meta_data = meta_data - 'mediaStreamUrl' - 'callFunctionTools'
 where meta_data ? 'mediaStreamUrl' or meta_data ? 'callFunctionTools';
